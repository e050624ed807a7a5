import { describe, expect, it } from 'vitest';
import type { GraphDoc } from '@ensemble-studio/core';
import { connect } from '../testing/wsTestClient.ts';
import { UNSAVED_GRAPHS } from './routes/metrics.ts';
import { call } from '../testing/testServer.ts';
import { testServerPerFile } from '../testing/testServerPerFile.ts';

const s = testServerPerFile();

describe('/metrics labels', () => {
  it('inline graphs with made-up names share one label; saved graphs keep theirs', async () => {
    const pipe = (await call(`${s.url}/api/graphs/pipe`)).json as GraphDoc;
    const c = await connect(s.url);
    const x = { datatype: 'FP32', shape: [1, 64], data: new Array(64).fill(0.5) };
    for (let i = 0; i < 20; i++) {
      c.send({
        type: 'run.start',
        requestId: `r${i}`,
        graph: { ...pipe, name: `made_up_${i}_${'n'.repeat(200)}` },
        inputs: { x },
      });
      await c.next('run.completed');
    }
    await c.close();
    expect((await call(`${s.url}/v2/models/pipe/infer`, 'POST', { inputs: [{ name: 'x', ...x }] })).status).toBe(200);
    const text = (await call(`${s.url}/metrics`)).text;
    expect(text).not.toMatch(/made_up_/);
    expect(text).toContain(`nv_inference_request_success{model="${UNSAVED_GRAPHS}",version="1"} 20`);
    expect(text).toContain('nv_inference_request_success{model="pipe",version="1"} 1');
  });
});
