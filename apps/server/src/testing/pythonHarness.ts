import { spawnSync } from 'node:child_process';
import type { DataType, Tensor } from '@ensemble-studio/core';

/** One emitted op module and the input sets to run it on. */
export interface PythonGroup {
  code: string;
  modelDir: string;
  cases: Record<string, Tensor>[];
}

/** A case's outcome under Python: its outputs, or the ValueError message. */
export type PythonResult = { ok: true; outputs: Record<string, Tensor> } | { ok: false; error: string };

const HARNESS = `
import base64, json, sys
import numpy as np
DT = {"FP32": np.float32, "UINT8": np.uint8, "INT64": np.int64}
NAMES = {np.dtype(np.float32): "FP32", np.dtype(np.uint8): "UINT8", np.dtype(np.int64): "INT64"}
def dec(t):
    return np.frombuffer(base64.b64decode(t["b64"]), dtype=DT[t["datatype"]]).reshape(t["shape"])
def enc(a):
    if a.dtype == np.object_:
        return {"datatype": "BYTES", "shape": list(a.shape), "strings": [x.decode("utf-8") for x in a.reshape(-1)]}
    return {"datatype": NAMES[a.dtype], "shape": list(a.shape), "b64": base64.b64encode(np.ascontiguousarray(a).tobytes()).decode()}
results = []
for group in json.load(sys.stdin):
    ns = {}
    exec(compile("import numpy as np\\nimport os\\n" + group["code"], "op.py", "exec"), ns)
    out = []
    for case in group["cases"]:
        try:
            res = ns["run"]({k: dec(v) for k, v in case.items()}, group["model_dir"])
            out.append({"ok": True, "outputs": {k: enc(v) for k, v in res.items()}})
        except ValueError as e:
            out.append({"ok": False, "error": str(e)})
    results.append(out)
json.dump(results, sys.stdout)
`;

const ARRAYS: Partial<Record<DataType, (b: Buffer) => Tensor['data']>> = {
  FP32: (b) => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)),
  UINT8: (b) => new Uint8Array(b),
  INT64: (b) => new BigInt64Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)),
};

function encode(t: Tensor): unknown {
  const d = t.data as Exclude<Tensor['data'], string[]>;
  return {
    datatype: t.datatype,
    shape: t.shape,
    b64: Buffer.from(d.buffer, d.byteOffset, d.byteLength).toString('base64'),
  };
}

function decode(j: { datatype: DataType; shape: number[]; b64?: string; strings?: string[] }): Tensor {
  if (j.datatype === 'BYTES') return { datatype: 'BYTES', shape: j.shape, data: j.strings ?? [] };
  const make = ARRAYS[j.datatype];
  if (make === undefined) throw new Error(`unexpected dtype ${j.datatype}`);
  return { datatype: j.datatype, shape: j.shape, data: make(Buffer.from(j.b64 ?? '', 'base64')) };
}

/**
 * Runs each group's emitted `run(inputs, model_dir)` under one python3 process and returns the
 * results per group per case. Throws when python3 itself fails (missing numpy, syntax error…).
 * @example runPython([{ code, modelDir: '/tmp', cases: [{ scores }] }])[0][0]
 */
export function runPython(groups: PythonGroup[]): PythonResult[][] {
  const payload = JSON.stringify(
    groups.map((g) => ({
      code: g.code,
      model_dir: g.modelDir,
      cases: g.cases.map((c) => Object.fromEntries(Object.entries(c).map(([k, t]) => [k, encode(t)]))),
    })),
  );
  const proc = spawnSync('python3', ['-c', HARNESS], { input: payload, maxBuffer: 1 << 30, encoding: 'utf8' });
  if (proc.status !== 0) throw new Error(`python3 failed (${proc.status}): ${proc.stderr}`);
  const raw = JSON.parse(proc.stdout) as {
    ok: boolean;
    error?: string;
    outputs?: Record<string, Parameters<typeof decode>[0]>;
  }[][];
  return raw.map((g) =>
    g.map((r) =>
      r.ok
        ? {
            ok: true as const,
            outputs: Object.fromEntries(Object.entries(r.outputs ?? {}).map(([k, t]) => [k, decode(t)])),
          }
        : { ok: false as const, error: r.error ?? '' },
    ),
  );
}
