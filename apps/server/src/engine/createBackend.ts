import { dirname } from 'node:path';
import type { Tensor } from '@ensemble-studio/core';
import type { ModelBackend } from './backends/modelBackend.ts';
import { OnnxBackend } from './backends/onnx/OnnxBackend.ts';
import type { PortableTensor } from './backends/onnx/workerProtocol.ts';
import { PythonBackend } from './backends/python/PythonBackend.ts';
import { EngineError } from './errors.ts';
import { instanceCount, providersFor, warmupFeeds, workerNice } from './modelSetup.ts';
import type { ModelRuntimeOptions } from './modelRuntimeTypes.ts';

/**
 * A model's backend: its instance pool of python3 processes running model.py, or of worker threads holding
 * onnxruntime sessions (warmed up with the config's warm-up inputs, read through `readFile`).
 * @throws EngineError 'model-unavailable' for a Python model without the engine's Python set-up
 */
export function createBackend(o: ModelRuntimeOptions, readFile: (f: string) => Uint8Array): ModelBackend {
  const cfg = o.config;
  const count = Math.max(1, instanceCount(cfg));
  if (o.backend === 'python') {
    const py = o.python;
    if (!py)
      throw new EngineError(
        'model-unavailable',
        `model '${o.name}' is a Python model but the engine has no Python set-up`,
      );
    return new PythonBackend(
      o.name,
      count,
      {
        model: o.name,
        modelFile: o.path,
        modelDir: dirname(dirname(o.path)),
        version: py.version,
        configJson: JSON.stringify(cfg),
        python: py.interpreter,
        bls: py.bls,
        ...(py.metrics ? { metrics: py.metrics } : {}),
        ...(py.log ? { log: py.log } : {}),
        ...(o.limits ? { limits: o.limits } : {}),
      },
      cfg,
    );
  }
  return new OnnxBackend(o.name, count, {
    kind: 'model',
    model: o.name,
    path: o.path,
    providers: providersFor(cfg, o.gpu),
    intraOpThreads: o.intraOpThreads,
    nice: workerNice(cfg),
    warmup: warmupFeeds(cfg, readFile).map(toPortableCopy),
    repoDir: o.repoDir,
    ...(o.limits ? { limits: o.limits } : {}),
  });
}

function toPortableCopy(feeds: Record<string, Tensor>): Record<string, PortableTensor> {
  return Object.fromEntries(
    Object.entries(feeds).map(([k, t]) => [k, { datatype: t.datatype, shape: [...t.shape], data: t.data }]),
  );
}
