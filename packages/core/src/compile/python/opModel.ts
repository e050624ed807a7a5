import type { OpNode } from '../../graph/types.ts';
import { nodePorts } from '../../kinds/registry.ts';
import type { Diagnostic } from '../../validate/diagnostic.ts';
import type { GraphInfo } from '../graphInfo.ts';
import { generatedModelName } from '../plan.ts';
import { pyValue } from '../pyStr.ts';
import type { RepoFile } from '../types.ts';
import { ioEntry, numpyOfConfig, PY_HEADER, pythonConfig, type GeneratedModel } from './common.ts';
import { emitOpPython } from './ops/index.ts';

/** Op values with sorted keys, so the marker and the emitted code are deterministic. */
export function sortedValues(
  values: Record<string, number | string | boolean>,
): Record<string, number | string | boolean> {
  return Object.fromEntries(
    Object.keys(values)
      .sort()
      .map((k) => [k, values[k]!]),
  );
}

/**
 * The generated Python model of an op node: inputs/outputs from OP_DEFS (port names, full
 * shapes), `1/model.py` wrapping the op's numpy `run(inputs, model_dir)`, plus the op's files
 * (e.g. the CTC dictionary) copied into the model directory.
 * @example opModel(info, ctcNode).files.map((f) => f.path) // ['ocr_ctc/1/model.py', 'ocr_ctc/ppocr_keys_v1.txt']
 */
export function opModel(info: GraphInfo, node: OpNode): GeneratedModel {
  const name = generatedModelName(info.graph.name, node.id);
  const diagnostics: Diagnostic[] = [];
  const ports = nodePorts(info.graph, node, info.catalogue);
  const input = ports.inputs.map((p) => ioEntry(p.name, p, node.id, diagnostics));
  const output = ports.outputs.map((p) => ioEntry(p.name, p, node.id, diagnostics));
  const values = sortedValues(node.params.values);
  const config = pythonConfig(name, input, output, { kind: 'op', op: node.params.op, values });
  const files: RepoFile[] = [];
  let code: string;
  try {
    const emitted = emitOpPython(node.params.op, values);
    code = emitted.code;
    for (const f of emitted.files) files.push({ path: `${name}/${f.to}`, copyFrom: f.from });
  } catch (e) {
    diagnostics.push({
      code: 'op-emit-failed',
      severity: 'error',
      nodeId: node.id,
      message: `cannot generate ${node.params.op}: ${(e as Error).message}`,
    });
    code = 'def run(inputs, model_dir):\n    raise pb_utils.TritonModelException("this op could not be generated")\n';
  }
  const outputs = output.map((o) => [o.name, numpyOfConfig(o.data_type)] as const);
  const text = opPython(
    code,
    input.map((i) => i.name),
    outputs,
  );
  return { name, config, files: [{ path: `${name}/1/model.py`, text }, ...files], diagnostics };
}

function opPython(opCode: string, inputs: string[], outputs: readonly (readonly [string, string])[]): string {
  return `${PY_HEADER}
# ---- op implementation -------------------------------------------------------------------
${opCode.trimEnd()}
# ------------------------------------------------------------------------------------------

_op_run = run
INPUTS = ${pyValue(inputs)}
OUTPUTS = [${outputs.map(([n, t]) => `(${pyValue(n)}, ${t})`).join(', ')}]


class TritonPythonModel:
    def initialize(self, args):
        # args["model_repository"] is this model's directory (the stub runs <it>/<version>/model.py).
        self.model_dir = args.get("model_repository") or os.path.join(
            os.path.dirname(os.path.realpath(__file__)), os.pardir)

    def execute(self, requests):
        responses = []
        for request in requests:
            try:
                inputs = {}
                for name in INPUTS:
                    tensor = pb_utils.get_input_tensor_by_name(request, name)
                    if tensor is not None:
                        inputs[name] = tensor.as_numpy()
                result = _op_run(inputs, self.model_dir)
                tensors = [pb_utils.Tensor(name, np.asarray(result[name], dtype=dtype)) for name, dtype in OUTPUTS]
                responses.append(pb_utils.InferenceResponse(output_tensors=tensors))
            except Exception as e:
                responses.append(pb_utils.InferenceResponse(error=pb_utils.TritonError(str(e))))
        return responses
`;
}
