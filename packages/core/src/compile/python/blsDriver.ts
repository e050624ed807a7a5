/**
 * The fixed part of a generated BLS model.py: op loading, the composing-model call helper and
 * `execute`. Only `initLines` (generated, already-escaped Python) vary.
 */
export function blsDriver(initLines: readonly string[]): string {
  const init = initLines.map((l) => `        ${l}\n`).join('');
  return `def _load_op(file_name):
    """Loads an op's numpy code (op_<node>.py beside this file) and returns its run function."""
    path = os.path.join(os.path.dirname(os.path.realpath(__file__)), file_name)
    spec = importlib.util.spec_from_file_location(file_name[:-3], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.run


def _pick(v, pairs):
    """{model input name: tensor} for the tensors that exist (optional inputs may be absent)."""
    return {name: v[tensor] for name, tensor in pairs if tensor in v}


class _Failure(Exception):
    """Ends the request with an error response carrying this message."""


class TritonPythonModel:
    def initialize(self, args):
        # args["model_repository"] is this model's directory (the stub runs <it>/<version>/model.py).
        self.model_dir = args.get("model_repository") or os.path.join(
            os.path.dirname(os.path.realpath(__file__)), os.pardir)
${init}
    def execute(self, requests):
        responses = []
        for request in requests:
            try:
                v = {}
                for name in INPUTS:
                    tensor = pb_utils.get_input_tensor_by_name(request, name)
                    if tensor is not None:
                        v[name] = tensor.as_numpy()
                batch = next(iter(v.values())).shape[0] if v and next(iter(v.values())).ndim > 0 else 1
                outputs = self._run(request, v, batch)
                responses.append(pb_utils.InferenceResponse(output_tensors=outputs))
            except _Failure as e:
                responses.append(pb_utils.InferenceResponse(error=pb_utils.TritonError(e.args[0])))
            except Exception as e:
                responses.append(pb_utils.InferenceResponse(error=pb_utils.TritonError(str(e))))
        return responses

    def _call(self, request, model_name, inputs, outputs, sequence, decoupled):
        """Runs a composing model; returns {output: array}, or None when a decoupled model sent
        no response (the pipeline then ends early)."""
        kwargs = {}
        if sequence:
            # A stateful model needs the client's sequence id and START/END flags.
            kwargs["correlation_id"] = request.correlation_id()
            kwargs["flags"] = request.flags()
        infer = pb_utils.InferenceRequest(
            model_name=model_name, requested_output_names=outputs,
            inputs=[pb_utils.Tensor(name, data) for name, data in inputs.items()], **kwargs)
        if decoupled:
            last = None
            for response in infer.exec(decoupled=True):
                if response.has_error():
                    raise _Failure(response.error().message())
                if response.output_tensors():
                    last = response
            if last is None:
                return None
            response = last
        else:
            response = infer.exec()
            if response.has_error():
                raise _Failure(response.error().message())
        result = {}
        for name in outputs:
            tensor = pb_utils.get_output_tensor_by_name(response, name)
            if tensor is None:
                raise _Failure("model '%s' did not return output '%s'" % (model_name, name))
            result[name] = tensor.as_numpy()
        return result
`;
}
