// Faults: a crashed model worker, a client vanishing mid-stream, a corrupt model file, a failing disk write while
// saving, SIGTERM with runs in flight. Each asserts the clear failure and that everything else carries on.
import { writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunningServer } from '../../apps/server/src/main.ts';
import { EXAMPLES_DIR, copyExamples, http, removeDir, spawnStudio, startStudio } from '../support/server.ts';
import { maxAbsDiff, ocrImage, report, runOcr, streamVad, vadChunks } from '../support/workload.ts';
import { connect } from '../support/wsClient.ts';

// Disk-full injection for the save test: when `failWrites` is set, a file handle's writeFile writes half and throws ENOSPC.
const failWrites = { on: false };
vi.mock('node:fs/promises', async (orig) => {
  const real = await orig<typeof import('node:fs/promises')>();
  const open: typeof real.open = async (...args: Parameters<typeof real.open>) => {
    const fh = await real.open(...args);
    if (!failWrites.on) return fh;
    return new Proxy(fh, {
      get(target, prop, recv) {
        if (prop === 'writeFile') {
          return async (data: string | Uint8Array) => {
            const buf = typeof data === 'string' ? Buffer.from(data) : Buffer.from(data);
            await target.write(buf.subarray(0, buf.length >> 1));
            throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
          };
        }
        const v = Reflect.get(target, prop, recv);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
  };
  return { ...real, open, default: { ...real, open } };
});

type Runtime = { name: string; pool: { instances: { crash(): void; name: string }[] } };
function runtimeOf(s: RunningServer, model: string): Runtime {
  const { models } = s.studio.engine as unknown as { models: { all(): Iterable<[string, Runtime]> } };
  const rt = [...models.all()].map(([, r]) => r).find((r) => r.name === model);
  if (!rt) throw new Error(`no runtime for ${model}`);
  return rt;
}

let server: RunningServer;
let repo: string;
beforeAll(async () => {
  repo = copyExamples();
  server = await startStudio({ repo });
}, 180_000);
afterAll(async () => {
  await server?.close();
  removeDir(repo);
});

describe('faults', () => {
  it('a crashed det worker fails its in-flight runs clearly, restarts, and VAD streams carry on', async () => {
    const image = ocrImage('hello.png');
    const c = await connect(server.url);
    const ref = await runOcr(c, image);
    expect(ref.end.type).toBe('run.completed');
    const vadRefClient = await connect(server.url);
    const chunks = vadChunks(30);
    const vadRef = await streamVad(vadRefClient, chunks);
    // in flight: 3 OCR runs on 3 sockets and a real-time VAD stream; crash det while they run
    const ocrSockets = await Promise.all([0, 1, 2].map(() => connect(server.url)));
    const inflight = ocrSockets.map((s) => runOcr(s, image));
    const vad = streamVad(vadRefClient, chunks, { paceMs: 32 });
    await new Promise((r) => setTimeout(r, 60));
    runtimeOf(server, 'det').pool.instances[0]!.crash();
    const results = await Promise.all(inflight);
    const failed = results.filter((r) => r.end.type === 'run.failed');
    report(
      `faults: det crash → ${failed.length}/3 in-flight OCR runs failed: ${JSON.stringify(failed[0]?.end.error ?? null)}`,
    );
    for (const f of failed) expect(`${f.end.error.code} ${f.end.error.message}`).toMatch(/crash|restart|instance/i);
    for (const r of results.filter((x) => x.end.type === 'run.completed'))
      expect(r.end.outputs.texts.data).toEqual(ref.end.outputs.texts.data);
    const v = await vad;
    expect(v.errors).toEqual([]);
    expect(maxAbsDiff(v.probs, vadRef.probs)).toBeLessThanOrEqual(1e-5);
    // restarted: the next run succeeds with the same texts
    await expect
      .poll(async () => (await runOcr(c, image)).end.type, { timeout: 60_000, interval: 500 })
      .toBe('run.completed');
    const after = await runOcr(c, image);
    expect(after.end.outputs.texts.data).toEqual(ref.end.outputs.texts.data);
    for (const s of [c, vadRefClient, ...ocrSockets]) s.close();
  });

  it('a client that disconnects mid-stream has its sequence freed (health and engine listing)', async () => {
    const c = await connect(server.url);
    const chunks = vadChunks(200);
    void streamVad(c, chunks, { paceMs: 32, timeoutMs: 20_000 }).catch(() => undefined);
    await expect.poll(() => server.studio.engine.sequences().length, { timeout: 10_000 }).toBeGreaterThan(0);
    const bound = (await http(`${server.url}/api/health`)).json.engine.activeSequences;
    c.raw.terminate();
    await expect.poll(() => server.studio.engine.sequences().length, { timeout: 15_000 }).toBe(0);
    const health = await http(`${server.url}/api/health`);
    report(`faults: disconnect mid-stream → active sequences ${bound} → ${health.json.engine.activeSequences}`);
    expect(health.json.engine.activeSequences).toBe(0);
    expect(health.json.runsInFlight).toBe(0);
  });

  it('a failed write while saving (disk full) leaves the previous saved graph intact', async () => {
    const graph = (await http(`${server.url}/api/graphs/vad-stream`)).json;
    const doc = graph.graph ?? graph;
    const file = join(repo, 'vad-stream', 'studio.json');
    const v1 = { ...doc, description: 'version one' };
    const ok = await http(`${server.url}/api/graphs/vad-stream`, {
      method: 'PUT',
      body: JSON.stringify({ graph: v1 }),
    });
    expect(ok.status, ok.text).toBe(200);
    const before = readFileSync(file, 'utf8');
    expect(JSON.parse(before).description).toBe('version one');
    failWrites.on = true;
    let failedSave;
    try {
      failedSave = await http(`${server.url}/api/graphs/vad-stream`, {
        method: 'PUT',
        body: JSON.stringify({ graph: { ...doc, description: 'version two' } }),
      });
    } finally {
      failWrites.on = false;
    }
    report(`faults: disk full while saving → ${failedSave.status} ${failedSave.text.slice(0, 120)}`);
    expect(failedSave.status).toBe(507);
    expect(failedSave.json?.error?.code).toBe('storage-full');
    expect(failedSave.json?.error?.message).toMatch(/disk is full/);
    expect(readFileSync(file, 'utf8')).toBe(before);
    const reread = await http(`${server.url}/api/graphs/vad-stream`);
    expect(JSON.stringify(reread.json)).toContain('version one');
  });
});

describe('faults: startup and shutdown', () => {
  it('a corrupt model file: det is unavailable in /api/health and not ready on /v2/models/det/ready; the rest serve', async () => {
    const dir = copyExamples();
    writeFileSync(join(dir, 'det', '1', 'model.onnx'), 'this is not an onnx model');
    const s = await startStudio({ repo: dir });
    try {
      const ready = await http(`${s.url}/v2/models/det/ready`);
      const health = await http(`${s.url}/api/health`);
      report(
        `faults: corrupt det → health ${JSON.stringify(health.json.engine.models.det)}, /v2/models/det/ready ${ready.status}`,
      );
      expect(ready.status).not.toBe(200);
      expect(health.json.engine.models.det.state).not.toBe('ready');
      const c = await connect(s.url);
      const ocr = await runOcr(c, ocrImage('hello.png'));
      expect(ocr.end.type === 'run.failed' || ocr.end.type === 'error').toBe(true);
      report(
        `faults: corrupt det → health ${JSON.stringify(health.json.engine.models.det)}, /v2/models/det/ready ${ready.status}, ocr: ${JSON.stringify(ocr.end.error).slice(0, 160)}`,
      );
      const vad = await streamVad(c, vadChunks(10));
      expect(vad.errors).toEqual([]);
      expect(vad.probs.every(Number.isFinite)).toBe(true);
      c.close();
    } finally {
      await s.close();
      removeDir(dir);
    }
  });

  it('SIGTERM with runs and streams in flight: clients get a terminal message or a close, the process exits within 15 s', async () => {
    const p = await spawnStudio(EXAMPLES_DIR);
    const c = await connect(p.url);
    const v = await connect(p.url);
    const image = ocrImage('two-lines.png');
    const runs = [
      runOcr(c, image, 30_000).catch((e: Error) => ({ end: { type: 'rejected', error: e.message }, ms: 0 })),
      runOcr(c, image, 30_000).catch((e: Error) => ({ end: { type: 'rejected', error: e.message }, ms: 0 })),
    ];
    void streamVad(v, vadChunks(300), { paceMs: 32, timeoutMs: 30_000 }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 300));
    const t0 = Date.now();
    p.child.kill('SIGTERM');
    const exit = await p.exited;
    const seconds = (exit.atMs - t0) / 1000;
    const ends = await Promise.all(runs);
    report(
      `faults: SIGTERM → exit code ${exit.code} signal ${exit.signal} after ${seconds.toFixed(2)} s; in-flight OCR runs ended ${ends.map((e) => e.end.type).join(', ')}; server said: ${p.output().slice(-300).replace(/\n/g, ' | ')}`,
    );
    expect(exit.code).toBe(0);
    expect(seconds).toBeLessThan(15);
    await c.closed;
    await v.closed;
  });
});
