import { describe, expect, it } from 'vitest';
import { connect } from '../testing/wsTestClient.ts';
import { testServerPerFile } from '../testing/testServerPerFile.ts';

const s = testServerPerFile({ limits: { maxSequencesPerClient: 2 } });

const chunk = (v: number) => ({ x: { datatype: 'FP32', shape: [1, 8], data: new Array(8).fill(v) } });

describe('sequences over WebSocket belong to their connection', () => {
  it('two clients choosing the same sequence id keep their own state, and one ending does not end the other', async () => {
    const a = await connect(s.url);
    const b = await connect(s.url);
    a.send({ type: 'stream.open', streamId: 'sa', graph: 'acc', sequenceId: 42 });
    a.send({ type: 'stream.append', streamId: 'sa', inputs: chunk(1) });
    expect((await a.next('run.completed')).outputs.y?.data?.[0]).toBe(1);
    b.send({ type: 'stream.open', streamId: 'sb', graph: 'acc', sequenceId: 42 });
    b.send({ type: 'stream.append', streamId: 'sb', inputs: chunk(100) });
    expect(await b.next('sequence.bound')).toMatchObject({ streamId: 'sb', sequenceId: 42 });
    expect((await b.next('run.completed')).outputs.y?.data?.[0]).toBe(100);
    b.send({ type: 'stream.end', streamId: 'sb' });
    expect(await b.next('sequence.ended')).toMatchObject({ streamId: 'sb', sequenceId: 42, reason: 'end' });
    a.send({ type: 'stream.append', streamId: 'sa', inputs: chunk(1) });
    expect((await a.next('run.completed')).outputs.y?.data?.[0]).toBe(2);
    a.send({ type: 'stream.append', streamId: 'sa', inputs: chunk(1), end: true });
    expect((await a.next('run.completed')).outputs.y?.data?.[0]).toBe(3);
    await a.close();
    await b.close();
  });

  it('one client cannot hold more than maxSequencesPerClient; others still open theirs', async () => {
    const greedy = await connect(s.url);
    for (const id of ['g1', 'g2', 'g3']) greedy.send({ type: 'stream.open', streamId: id, graph: 'acc' });
    expect(await greedy.next('error')).toMatchObject({
      ref: 'g3',
      error: { code: 'limit', message: expect.stringMatching(/maxSequencesPerClient=2/) },
    });
    const other = await connect(s.url);
    other.send({ type: 'stream.open', streamId: 'o1', graph: 'acc' });
    other.send({ type: 'stream.append', streamId: 'o1', inputs: chunk(5), end: true });
    expect((await other.next('run.completed')).outputs.y?.data?.[0]).toBe(5);
    await greedy.close();
    await other.close();
  });
});
