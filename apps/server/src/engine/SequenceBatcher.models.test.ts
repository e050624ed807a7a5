import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import * as ort from 'onnxruntime-node';
import type { ModelConfig } from '@ensemble-studio/core';
import { ModelRuntime } from './ModelRuntime.ts';
import { makeTestRepository } from '../testing/engineFixtures.ts';
import { mulberry32 } from '../onnx/synthetic.ts';
import { foldScalarInput } from '../examples/foldConstantInput.ts';
import { modelSources } from '../examples/modelSources.ts';
import { S, x } from '../testing/sequenceFixtures.ts';

describe('sequence batching on real models', () => {
  const repo = makeTestRepository(['accumulator', 'vad']);
  const runtimes: ModelRuntime[] = [];
  afterAll(async () => {
    await Promise.all(runtimes.map((r) => r.close()));
  });

  async function runtime(name: string, config: ModelConfig): Promise<ModelRuntime> {
    const rt = new ModelRuntime({
      name,
      config,
      path: repo.modelFile(name)!,
      backend: 'onnx',
      repoDir: repo.dir,
      intraOpThreads: 1,
      gpu: 'off',
    });
    runtimes.push(rt);
    await rt.load();
    expect({ state: rt.state, error: rt.error }).toEqual({ state: 'ready', error: undefined });
    return rt;
  }

  it('oldest: batches 64 sequences together and keeps each sum', async () => {
    const rt = await runtime('accumulator', repo.catalogue.models.accumulator!.config);
    const steps = 5;
    await Promise.all(
      Array.from({ length: 64 }, async (_, s) => {
        let sum = 0;
        for (let k = 0; k < steps; k++) {
          const v = s * 100 + k;
          sum += v;
          const r = await rt.infer({ inputs: x(v), sequence: { id: s + 1, start: k === 0, end: k === steps - 1 } });
          expect(Array.from(r.outputs.y!.data as Float32Array)).toEqual(new Array(S).fill(sum));
        }
      }),
    );
    const sizes = Object.keys(rt.stats.snapshot(0).batchSizes).map(Number);
    expect(Math.max(...sizes)).toBeGreaterThan(1);
    expect(rt.sequences!.list()).toHaveLength(0);
  });

  it('Silero VAD: 64 concurrent sequences, batched, each equal the original model run one stream at a time', async () => {
    const rt = await runtime('vad', repo.catalogue.models.vad!.config);
    const chunks = 12;
    const audio = Array.from({ length: 64 }, (_, s) => {
      const r = mulberry32(s + 1);
      return Array.from({ length: chunks }, (_, k) =>
        Float32Array.from(
          { length: 576 },
          (_, i) => Math.sin((i + k * 512) * 0.05 * (1 + (s % 7))) * (k % 3 === 0 ? 0.6 : 0.05) + (r() - 0.5) * 0.1,
        ),
      );
    });
    // The reference is Silero as published (batch-second state), not the batch-first rewrite the engine serves.
    const session = await ort.InferenceSession.create(foldScalarInput(readFileSync(modelSources().vad), 'sr', 16000n), {
      intraOpNumThreads: 1,
    });
    const reference: number[][] = [];
    for (const stream of audio) {
      let state: ort.Tensor = new ort.Tensor('float32', new Float32Array(256), [2, 1, 128]);
      const probs: number[] = [];
      for (const chunk of stream) {
        const out = await session.run({ input: new ort.Tensor('float32', chunk, [1, 576]), state });
        probs.push((out.output!.data as Float32Array)[0]!);
        state = out.stateN as ort.Tensor;
      }
      reference.push(probs);
    }
    const seen = new Set<string>();
    const got = await Promise.all(
      audio.map(async (stream, s) => {
        const probs: number[] = [];
        for (let k = 0; k < stream.length; k++) {
          const r = await rt.infer({
            inputs: { input: { datatype: 'FP32', shape: [1, 576], data: stream[k]! } },
            sequence: { id: `stream-${s}`, start: k === 0, end: k === stream.length - 1 },
          });
          seen.add(r.instance);
          probs.push((r.outputs.output!.data as Float32Array)[0]!);
        }
        return probs;
      }),
    );
    let maxDiff = 0;
    got.forEach((probs, s) => {
      expect(probs).toHaveLength(chunks);
      probs.forEach((p, k) => {
        maxDiff = Math.max(maxDiff, Math.abs(p - reference[s]![k]!));
      });
    });
    expect(maxDiff).toBeLessThanOrEqual(1e-5);
    expect(new Set(reference.map((r) => r.join())).size).toBe(64); // streams differ, so misrouting would show
    expect(seen).toEqual(new Set(['vad_0', 'vad_1']));
    expect(Math.max(...Object.keys(rt.stats.snapshot(0).batchSizes).map(Number))).toBeGreaterThan(1);
  });
});
