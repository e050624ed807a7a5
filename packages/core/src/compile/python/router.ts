import type { RouterNode } from '../../graph/types.ts';
import type { Diagnostic } from '../../validate/diagnostic.ts';
import { arrivingType, type GraphInfo } from '../graphInfo.ts';
import { generatedModelName } from '../plan.ts';
import { pyValue } from '../pyStr.ts';
import { ioEntry, PY_HEADER, pythonConfig, type GeneratedModel } from './common.ts';

/**
 * The generated Python model of a `copy` router: input `in`, outputs `out_0..out_{N-1}`, each an
 * independent `np.copy` of the input (the known fix when steps sharing one tensor misbehave).
 * @example routerModel(info, router).files[0]?.path === 'ocr_r1/1/model.py'
 */
export function routerModel(info: GraphInfo, node: RouterNode): GeneratedModel {
  const name = generatedModelName(info.graph.name, node.id);
  const diagnostics: Diagnostic[] = [];
  const t = arrivingType(info, node.id, 'in');
  const count = Math.max(0, Math.trunc(node.params.count));
  const outNames = Array.from({ length: count }, (_, i) => `out_${i}`);
  const config = pythonConfig(
    name,
    [ioEntry('in', t, node.id, diagnostics)],
    outNames.map((o) => ioEntry(o, t, node.id, [])),
    { kind: 'router', mode: 'copy', count },
  );
  return { name, config, files: [{ path: `${name}/1/model.py`, text: routerPython(outNames) }], diagnostics };
}

function routerPython(outNames: string[]): string {
  return `${PY_HEADER}
OUTPUTS = ${pyValue(outNames)}


class TritonPythonModel:
    """Router (copy): returns independent copies of input "in", one per output."""

    def execute(self, requests):
        responses = []
        for request in requests:
            tensor = pb_utils.get_input_tensor_by_name(request, "in")
            if tensor is None:
                responses.append(pb_utils.InferenceResponse(error=pb_utils.TritonError("input 'in' is missing")))
                continue
            data = tensor.as_numpy()
            outputs = [pb_utils.Tensor(name, np.copy(data)) for name in OUTPUTS]
            responses.append(pb_utils.InferenceResponse(output_tensors=outputs))
        return responses
`;
}
