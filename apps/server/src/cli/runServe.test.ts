import { execFileSync, spawn } from 'node:child_process';
import { cpSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTestRepository } from '../testing/testRepository.ts';
import { DEFAULT_REPO } from './main.ts';
import { BIN, runBin } from '../testing/cliTestUtil.ts';
import { connectTestClient } from '../testing/grpcTestClient.ts';
import { makeFixtures } from '../testing/smokeSupport.ts';
import { tempDir } from '../testing/tempDir.ts';
import { encodeWav } from '../testing/encodeWav.ts';

interface SequenceLine {
  type: string;
  chunk?: number;
  status?: string;
  outputs?: Record<string, { data: number[] }>;
  speech_segments?: { start: number; end: number; start_s: number; end_s: number }[];
}

const repo = makeTestRepository();
const x64 = Array.from({ length: 64 }, (_, i) => (i % 5) / 5);

/** 16-bit PCM mono WAV of samples in [-1, 1]. */
const wav = (samples: number[], rate = 16000): Buffer =>
  encodeWav(
    Int16Array.from(samples, (v) => Math.round(Math.max(-1, Math.min(1, v)) * 32767)),
    rate,
  );

describe('run', () => {
  it('prints one JSON line per engine event and a final result with KServe JSON tensors', async () => {
    const cwd = tempDir('run-');
    writeFileSync(join(cwd, 'x.json'), JSON.stringify([x64]));
    const r = await runBin(['run', 'pipe', '--repo', repo, '--input', 'x=x.json'], { env: { INIT_CWD: cwd } });
    expect(r.code).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            type: string;
            status?: string;
            outputs?: Record<string, { shape: number[]; data: number[] }>;
          },
      );
    expect(lines[0]?.type).toBe('run.started');
    expect(lines.some((l) => l.type === 'node.finished')).toBe(true);
    const result = lines.at(-1)!;
    expect(result).toMatchObject({ type: 'result', status: 'completed' });
    expect(result.outputs?.logits).toMatchObject({ datatype: 'FP32', shape: [1, 16] });
    expect(result.outputs?.logits?.data).toHaveLength(16);
  });

  it('exits 1 with the reason when the run fails, and names unreadable input files', async () => {
    const cwd = tempDir('run-');
    writeFileSync(join(cwd, 'x.json'), JSON.stringify([x64.slice(1)]));
    const failed = await runBin(['run', 'pipe', '--repo', repo, '--input', 'x=x.json'], { env: { INIT_CWD: cwd } });
    expect(failed.code).toBe(1);
    const missing = await runBin(['run', 'pipe', '--repo', repo, '--input', 'x=nope.json'], { env: { INIT_CWD: cwd } });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/input 'x': cannot use .*nope\.json: no such file/);
    expect(missing.stderr).not.toMatch(/\n\s+at /);
  });

  it('--sequence streams a WAV through a stateful graph in 512-sample chunks (after prepare-examples)', async () => {
    const examples = join(tempDir('examples-'), 'model_repository');
    cpSync(DEFAULT_REPO, examples, { recursive: true, dereference: true });
    const prep = await runBin(['prepare-examples', '--repo', examples]);
    expect(prep.code).toBe(0);
    expect(prep.stdout).toMatch(/vad\/1\/model\.onnx/);
    const cwd = tempDir('run-');
    writeFileSync(join(cwd, 'a.wav'), wav(Array.from({ length: 1200 }, (_, i) => 0.3 * Math.sin(i / 10))));
    const r = await runBin(['run', 'vad-stream', '--repo', examples, '--input', 'audio=a.wav', '--sequence'], {
      env: { INIT_CWD: cwd },
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const results = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as SequenceLine)
      .filter((l) => l.type === 'result');
    expect(results.map((l) => [l.chunk, l.status])).toEqual([
      [0, 'completed'],
      [1, 'completed'],
      [2, 'completed'],
    ]);
    for (const l of results) expect(l.outputs?.speech_prob?.data[0]).toBeGreaterThanOrEqual(0);
    // Only the last chunk's line carries the speech segments (75 ms of tone: too short to be speech).
    expect(results.map((l) => l.speech_segments)).toEqual([undefined, undefined, []]);
    // The same signal recorded at 44.1 kHz is resampled to the 16 kHz the graph's audio_frame op expects, and says so on stderr.
    writeFileSync(
      join(cwd, 'b.wav'),
      wav(
        Array.from({ length: 3308 }, (_, i) => 0.3 * Math.sin((i * 16000) / 44100 / 10)),
        44100,
      ),
    );
    const b = await runBin(['run', 'vad-stream', '--repo', examples, '--input', 'audio=b.wav', '--sequence'], {
      env: { INIT_CWD: cwd },
    });
    expect(b.code).toBe(0);
    expect(b.stderr.trim()).toBe(
      "input 'audio': b.wav is 44100 Hz; resampled to 16000 Hz, the rate op 'frame' expects",
    );
    expect(
      b.stdout
        .trim()
        .split('\n')
        .filter((l) => l.includes('"type":"result"')),
    ).toHaveLength(3);
    // A spoken recording (1 s of silence on each side): its speech segments, as Silero's get_speech_timestamps gives them.
    const speech = await runBin([
      'run',
      'vad-stream',
      '--repo',
      examples,
      '--input',
      `audio=${makeFixtures().speech}`,
      '--sequence',
    ]);
    expect(speech.code).toBe(0);
    const last = JSON.parse(speech.stdout.trim().split('\n').at(-1)!) as SequenceLine;
    expect(last.type).toBe('result');
    const segs = last.speech_segments ?? [];
    expect(segs.length).toBeGreaterThan(0);
    expect(segs[0]!.start_s).toBeGreaterThan(0.8);
    expect(segs[0]!.start_s).toBeLessThan(1.3);
    expect(segs.at(-1)!.end_s).toBeGreaterThan(4.5);
    expect(segs.at(-1)!.end_s).toBeLessThan(5.8);
    for (const g of segs) expect(Math.abs(g.start / 16000 - g.start_s)).toBeLessThan(1e-3);
  });
});

describe('serve', () => {
  it('prints the URL, the gRPC address and the metrics URL, serves all three, and stops cleanly on SIGTERM', async () => {
    const args = [
      'serve',
      '--repo',
      repo,
      '--port',
      '0',
      '--grpc-port',
      '0',
      '--metrics-port',
      '0',
      '--allow-client-shm',
    ];
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const [url, grpcAddress, metricsUrl] = await new Promise<[string, string, string]>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /^listening on (http:\/\/\S+)\ngrpc listening on (\S+)\nmetrics listening on (http:\/\/\S+)$/m.exec(
          out,
        );
        if (m) resolve([m[1]!, m[2]!, m[3]!]);
      });
      child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
    });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(grpcAddress).toMatch(/^127\.0\.0\.1:\d+$/);
    // Its event loop was raised before it listened; where to real-time, every other thread (model workers
    // included) stays at the fair policy.
    expect(err).toMatch(/^event loop: (real-time|a 100 µs scheduler slice|default scheduling)/m);
    if (/^event loop: real-time/m.test(err)) {
      const policies = readdirSync(`/proc/${child.pid}/task`).map(
        (tid) => [Number(tid), execFileSync('chrt', ['-p', tid], { encoding: 'utf8' }).split('\n')[0]!] as const,
      );
      expect(policies.length).toBeGreaterThan(5);
      for (const [tid, policy] of policies)
        expect(policy).toMatch(tid === child.pid ? /SCHED_RR\|SCHED_RESET_ON_FORK$/ : /SCHED_OTHER$/);
    }
    expect((await fetch(`${url}/api/health`)).status).toBe(200);
    // --allow-client-shm: a region may be registered (an object that is not there gets Triton's INTERNAL, not its
    // "Client shared memory is disabled").
    const shm = await fetch(`${url}/v2/systemsharedmemory/region/r/register`, {
      method: 'POST',
      body: JSON.stringify({ key: `/studio-serve-test-none-${process.pid}`, byte_size: 8 }),
    });
    expect([shm.status, ((await shm.json()) as { error: string }).error]).toEqual([
      500,
      `Unable to open shared memory region: '/studio-serve-test-none-${process.pid}'`,
    ]);
    expect(await (await fetch(`${metricsUrl}/metrics`)).text()).toMatch(/^# TYPE studio_runs_in_flight gauge$/m);
    const grpc = connectTestClient(grpcAddress);
    expect(await grpc.call('ServerLive', {})).toEqual({ live: true });
    grpc.close();
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
