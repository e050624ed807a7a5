import { expressionToPython, parseExpression } from '../../expr/index.ts';
import type { ConditionNode } from '../../graph/types.ts';
import type { Diagnostic } from '../../validate/diagnostic.ts';
import { arrivingType, type GraphInfo } from '../graphInfo.ts';
import { gateTensorNames, generatedModelName } from '../plan.ts';
import { pyStr, pyValue } from '../pyStr.ts';
import { ioEntry, PY_HEADER, PY_HOLDS, pythonConfig, type GeneratedModel } from './common.ts';

/**
 * The Python source of `def _exit_when(t)` for a condition expression over `t[port]` (numpy
 * arrays). An expression that does not parse compiles to a predicate that fails every request
 * (the validator reports the expression itself).
 */
export function predicatePython(
  expression: string,
  tensorVar: (port: string) => string,
  fnName = '_exit_when',
  arg = 't',
): string {
  const parsed = parseExpression(expression);
  let body: string;
  if (parsed.ok) {
    try {
      body = `return _holds(${expressionToPython(parsed.ast, tensorVar)})`;
    } catch (e) {
      body = `raise pb_utils.TritonModelException(${pyStr(`invalid condition expression: ${(e as Error).message}`)})`;
    }
  } else {
    body = `raise pb_utils.TritonModelException(${pyStr(`invalid condition expression: ${parsed.error.message}`)})`;
  }
  return `def ${fnName}(${arg}):\n    ${body}\n`;
}

/**
 * The generated gate of a `gate` or `error` condition. Ports pass through as `IN_<p>` → `OUT_<p>`.
 * gate: decoupled; predicate false → one response + FINAL, true → FINAL only (zero responses).
 * error: not decoupled; predicate true → an error response carrying the user's message.
 * @example conditionModel(info, cond).config.model_transaction_policy // { decoupled: true } for gate
 */
export function conditionModel(info: GraphInfo, node: ConditionNode): GeneratedModel {
  const name = generatedModelName(info.graph.name, node.id);
  const diagnostics: Diagnostic[] = [];
  const { ports, strategy, expression, message } = node.params;
  const names = ports.map((p) => ({ port: p, ...gateTensorNames(p) }));
  const input = names.map((n) => ioEntry(n.input, arrivingType(info, node.id, n.port), node.id, diagnostics));
  const output = names.map((n, i) => ({ ...input[i]!, name: n.output }));
  const marker = {
    kind: 'condition',
    strategy,
    expression,
    ports: [...ports],
    message,
    inputs: Object.fromEntries(names.map((n) => [n.port, n.input])),
    outputs: Object.fromEntries(names.map((n) => [n.port, n.output])),
  };
  const config = pythonConfig(name, input, output, marker);
  if (strategy === 'gate') config.model_transaction_policy = { decoupled: true };
  const tensors = names.map((n) => [n.port, n.input, n.output] as const);
  const code = strategy === 'gate' ? gatePython(tensors, expression) : errorGatePython(tensors, expression, message);
  return { name, config, files: [{ path: `${name}/1/model.py`, text: code }], diagnostics };
}

function preamble(tensors: readonly (readonly [string, string, string])[], expression: string): string {
  return `${PY_HEADER}
# (port, input name, output name) of each tensor passing through the gate.
TENSORS = ${pyValue(tensors.map((t) => [...t]))}
EXPRESSION = ${pyStr(expression)}


${PY_HOLDS}

${predicatePython(expression, (p) => `t[${pyStr(p)}]`)}

def _read(request):
    t = {}
    for port, input_name, _ in TENSORS:
        tensor = pb_utils.get_input_tensor_by_name(request, input_name)
        if tensor is None:
            raise pb_utils.TritonModelException("input '%s' is missing" % input_name)
        t[port] = tensor.as_numpy()
    return t


def _pass_through(t):
    return pb_utils.InferenceResponse(
        output_tensors=[pb_utils.Tensor(output_name, t[port]) for port, _, output_name in TENSORS])
`;
}

function gatePython(tensors: readonly (readonly [string, string, string])[], expression: string): string {
  return `${preamble(tensors, expression)}

class TritonPythonModel:
    """Decoupled gate: when the condition holds, the request ends with zero responses, so the
    ensemble steps after the gate never run (Triton 23.07+ ends the ensemble cleanly)."""

    def execute(self, requests):
        for request in requests:
            sender = request.get_response_sender()
            try:
                t = _read(request)
                if _exit_when(t):
                    sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
                else:
                    sender.send(_pass_through(t), flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
            except Exception as e:
                sender.send(pb_utils.InferenceResponse(error=pb_utils.TritonError(str(e))),
                            flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
        return None
`;
}

function errorGatePython(
  tensors: readonly (readonly [string, string, string])[],
  expression: string,
  message: string,
): string {
  return `${preamble(tensors, expression)}
MESSAGE = ${pyStr(message)}


class TritonPythonModel:
    """Error gate: when the condition holds, the request fails with MESSAGE; otherwise the
    tensors pass through unchanged."""

    def execute(self, requests):
        responses = []
        for request in requests:
            try:
                t = _read(request)
                if _exit_when(t):
                    responses.append(pb_utils.InferenceResponse(error=pb_utils.TritonError(MESSAGE)))
                else:
                    responses.append(_pass_through(t))
            except Exception as e:
                responses.append(pb_utils.InferenceResponse(error=pb_utils.TritonError(str(e))))
        return responses
`;
}
