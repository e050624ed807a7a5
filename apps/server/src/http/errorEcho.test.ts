import { describe, expect, it } from 'vitest';
import { connect } from '../testing/wsTestClient.ts';
import { capMessage, MAX_ERROR_MESSAGE } from './errors.ts';
import { call } from '../testing/testServer.ts';
import { testServerPerFile } from '../testing/testServerPerFile.ts';

const s = testServerPerFile();

const longName = 'n'.repeat(100_000);
const limit = MAX_ERROR_MESSAGE + 100;

describe('errors do not echo hostile input in full', () => {
  it('KServe: a 100 KB input name and a 100k-dimension shape', async () => {
    const name = await call(`${s.url}/v2/models/extractor/infer`, 'POST', {
      inputs: [{ name: longName, datatype: 'FP32', shape: [1], data: [1] }],
    });
    expect(name.status).toBe(400);
    expect(name.json.error.length).toBeLessThan(limit);
    expect(name.json.error).toMatch(/more characters\)$/);
    const shape = await call(`${s.url}/v2/models/extractor/infer`, 'POST', {
      inputs: [{ name: 'x', datatype: 'FP32', shape: new Array(100_000).fill(1), data: [1] }],
    });
    expect(shape.status).toBe(400);
    expect(shape.json.error.length).toBeLessThan(limit);
  });

  it('API: a graph document with a 100 KB node id', async () => {
    const pipe = (await call(`${s.url}/api/graphs/pipe`)).json;
    const r = await call(`${s.url}/api/compile`, 'POST', { graph: 'pipe', nodeId: longName });
    expect(r.status).toBe(404);
    expect(r.json.error.message.length).toBeLessThan(limit);
    expect(pipe.name).toBe('pipe');
  });

  it('WebSocket: a 100 KB input name', async () => {
    const c = await connect(s.url);
    c.send({
      type: 'run.start',
      requestId: 'r',
      graph: 'extractor',
      inputs: { [longName]: { datatype: 'FP32', shape: [1], data: [1] } },
    });
    const answer = await Promise.race([c.next('error'), c.next('run.failed')]);
    expect(JSON.stringify(answer).length).toBeLessThan(limit + 200);
    expect(JSON.stringify(answer)).toMatch(/more characters/);
    await c.close();
  });

  it('capMessage keeps short messages and says how much it cut', () => {
    expect(capMessage('short')).toBe('short');
    expect(capMessage('x'.repeat(MAX_ERROR_MESSAGE + 5))).toBe(`${'x'.repeat(MAX_ERROR_MESSAGE)}… (5 more characters)`);
  });
});
