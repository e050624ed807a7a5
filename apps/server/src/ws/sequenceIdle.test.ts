import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestRepository } from '../testing/testRepository.ts';
import { startTestServer } from '../testing/testServer.ts';
import { removeTempDir } from '../testing/tempDir.ts';
import { connect } from '../testing/wsTestClient.ts';

// The test repository's stateful `acc` with a short idle timeout, so the engine ends idle sequences quickly; not
// shorter, as the first test checks the slots a stream holds while it is open: any stall of this process (the
// server's too) as long as the timeout, between the stream's last chunk and that check, idled it out first
// (300 ms did, on one busy core).
const IDLE_MICROSECONDS = 1_500_000;

let s: Awaited<ReturnType<typeof startTestServer>>;
beforeAll(async () => {
  const repo = makeTestRepository();
  const config = join(repo, 'acc', 'config.pbtxt');
  writeFileSync(
    config,
    readFileSync(config, 'utf8').replace(
      'max_sequence_idle_microseconds: 5000000',
      `max_sequence_idle_microseconds: ${IDLE_MICROSECONDS}`,
    ),
  );
  s = await startTestServer({ repo, limits: { maxSequencesPerClient: 1, maxOpenSequences: 1 } });
});
afterAll(async () => {
  await s?.close();
  if (s) removeTempDir(s.repo);
});

const chunk = (v: number) => ({ x: { datatype: 'FP32', shape: [1, 8], data: new Array(8).fill(v) } });

describe('a WebSocket stream the engine idled out', () => {
  it('ends with reason idle naming the stream, and frees its per-client and global slots', async () => {
    const a = await connect(s.url);
    const b = await connect(s.url);
    try {
      a.send({ type: 'stream.open', streamId: 'quiet', graph: 'acc', sequenceId: 7 });
      a.send({ type: 'stream.append', streamId: 'quiet', inputs: chunk(1) });
      expect((await a.next('run.completed')).outputs.y?.data?.[0]).toBe(1);
      // While it is open, both slots are taken.
      b.send({ type: 'stream.open', streamId: 'other', graph: 'acc' });
      expect(await b.next('error')).toMatchObject({ ref: 'other', error: { code: 'limit' } });

      const ended = await a.next('sequence.ended');
      expect(ended).toMatchObject({ streamId: 'quiet', sequenceId: 7, reason: 'idle' });
      expect(ended.message).toMatch(/stream "quiet" ended: model 'acc' .* after 1\.5 s without requests/);

      // The idled stream is gone: a late chunk is refused instead of silently starting over.
      a.send({ type: 'stream.append', streamId: 'quiet', inputs: chunk(1) });
      expect(await a.next('error')).toMatchObject({ ref: 'quiet', error: { code: 'unknown-stream' } });

      // The per-client slot is free: the same client opens a new stream.
      a.send({ type: 'stream.open', streamId: 'again', graph: 'acc' });
      a.send({ type: 'stream.append', streamId: 'again', inputs: chunk(3), end: true });
      expect((await a.next('run.completed')).outputs.y?.data?.[0]).toBe(3);
      expect(await a.next('sequence.ended')).toMatchObject({ streamId: 'again', reason: 'end' });

      // The global slot is free: another client opens one.
      b.send({ type: 'stream.open', streamId: 'other', graph: 'acc' });
      b.send({ type: 'stream.append', streamId: 'other', inputs: chunk(5), end: true });
      expect((await b.next('run.completed')).outputs.y?.data?.[0]).toBe(5);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('ends a stream opened and never fed after the same idle timeout, and frees its slots', async () => {
    const a = await connect(s.url);
    const b = await connect(s.url);
    try {
      a.send({ type: 'stream.open', streamId: 'unfed', graph: 'acc', sequenceId: 9 });
      const ended = await a.next('sequence.ended');
      expect(ended).toMatchObject({ streamId: 'unfed', sequenceId: 9, reason: 'idle' });
      expect(ended.message).toBe(
        `stream "unfed" ended: no chunk arrived within 1.5 s of stream.open (max_sequence_idle_microseconds of model 'acc'); open a new stream to go on`,
      );
      a.send({ type: 'stream.append', streamId: 'unfed', inputs: chunk(1) });
      expect(await a.next('error')).toMatchObject({ ref: 'unfed', error: { code: 'unknown-stream' } });
      b.send({ type: 'stream.open', streamId: 'other', graph: 'acc' });
      b.send({ type: 'stream.append', streamId: 'other', inputs: chunk(4), end: true });
      expect((await b.next('run.completed')).outputs.y?.data?.[0]).toBe(4);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
