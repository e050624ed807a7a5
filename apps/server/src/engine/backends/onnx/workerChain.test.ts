// The chain a model's worker runs for a fused group: when asked, it wakes the main thread as its session returns,
// ahead of the steps after it (Placer.wakeAhead), and only then.
import { describe, expect, it } from 'vitest';
import type * as ort from 'onnxruntime-node';
import type { OpContext } from '../../ops/registry.ts';
import { runChain, type ChainDeps } from './workerChain.ts';
import type { ChainStep, PortableTensor } from './workerProtocol.ts';

const image: PortableTensor = { datatype: 'FP32', shape: [1, 4], data: new Float32Array([3, 1, 4, 1]) };

/** What the chain did, in order: the session's run, a `soon`, an op. */
function deps(log: string[], wake: boolean): ChainDeps {
  const session = {
    // The session's outputs as onnxruntime gives them (type, dims, data), for the chain's own conversion.
    run: async (feeds: Record<string, ort.Tensor>) => {
      log.push('session');
      return { y: { type: 'float32', dims: [1, 4], data: feeds.x!.data } as unknown as ort.Tensor };
    },
  };
  return {
    session,
    opContext: () => ({}) as OpContext,
    toOrt: (t) => ({ type: 'float32', dims: t.shape, data: t.data }) as unknown as ort.Tensor,
    checkOutputs: async () => {},
    soon: wake ? () => log.push('soon') : undefined,
  };
}

const model: ChainStep = { kind: 'model', inputs: { x: { feed: 'image' } } };
const topk: ChainStep = { kind: 'op', op: 'topk', values: { k: 1 }, inputs: { scores: { step: 0, port: 'y' } } };

describe('runChain', () => {
  it('posts soon as its session returns, before the steps after it', async () => {
    const log: string[] = [];
    const r = await runChain([model, topk], { image }, false, wrapOps(deps(log, true), log));
    expect(r.stages).toHaveLength(2);
    expect(log).toEqual(['session', 'soon', 'op']);
  });

  it('does not when not asked, or when the session is the last step', async () => {
    const quiet: string[] = [];
    await runChain([model, topk], { image }, false, wrapOps(deps(quiet, false), quiet));
    expect(quiet).toEqual(['session', 'op']);
    const last: string[] = [];
    await runChain([model], { image }, false, deps(last, true));
    expect(last).toEqual(['session']);
  });
});

/** `deps` whose op context logs each op it is asked for (the op itself runs as registered). */
function wrapOps(d: ChainDeps, log: string[]): ChainDeps {
  return { ...d, opContext: () => (log.push('op'), d.opContext()) };
}
