import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// Small Python-backend models, written into a test repository the way users lay theirs out.

const ADD_SUB = `
import json
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def initialize(self, args):
        cfg = json.loads(args["model_config"])
        self.out_dtype = pb_utils.triton_string_to_numpy(pb_utils.get_output_config_by_name(cfg, "OUTPUT0")["data_type"])
        print("add_sub ready on", args["model_instance_name"])

    def execute(self, requests):
        responses = []
        for request in requests:
            a = pb_utils.get_input_tensor_by_name(request, "INPUT0").as_numpy()
            b = pb_utils.get_input_tensor_by_name(request, "INPUT1").as_numpy()
            responses.append(pb_utils.InferenceResponse(output_tensors=[
                pb_utils.Tensor("OUTPUT0", (a + b).astype(self.out_dtype)),
                pb_utils.Tensor("OUTPUT1", (a - b).astype(self.out_dtype)),
            ]))
        return responses
`;

const REPEAT = `
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        for request in requests:
            sender = request.get_response_sender()
            values = pb_utils.get_input_tensor_by_name(request, "IN").as_numpy()
            for v in values:
                sender.send(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.array([v], dtype=np.int32))]))
            sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
        return None
`;

const BLS = `
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            x = pb_utils.get_input_tensor_by_name(request, "X").as_numpy()
            call = pb_utils.InferenceRequest(model_name="add_sub", requested_output_names=["OUTPUT0"],
                inputs=[pb_utils.Tensor("INPUT0", x), pb_utils.Tensor("INPUT1", x)])
            r = call.exec()
            if r.has_error():
                raise pb_utils.TritonModelException(r.error().message())
            doubled = pb_utils.get_output_tensor_by_name(r, "OUTPUT0").as_numpy()
            missing = pb_utils.InferenceRequest(model_name="no_such_model", requested_output_names=["Y"],
                inputs=[pb_utils.Tensor("X", x)]).exec()
            streamed = pb_utils.InferenceRequest(model_name="repeat", requested_output_names=["OUT"],
                inputs=[pb_utils.Tensor("IN", np.array([7, 8, 9], dtype=np.int32))]).exec(decoupled=True)
            got = [int(p.output_tensors()[0].as_numpy()[0]) for p in streamed if len(p.output_tensors()) > 0]
            responses.append(pb_utils.InferenceResponse([
                pb_utils.Tensor("Y", doubled),
                pb_utils.Tensor("ERR", np.array([missing.error().message().encode()], dtype=np.object_)),
                pb_utils.Tensor("STREAM", np.array(got, dtype=np.int32)),
            ]))
        return responses
`;

const RAISER = `
import triton_python_backend_utils as pb_utils

def check(x):
    raise ValueError("x must not be " + str(x.tolist()))

class TritonPythonModel:
    def execute(self, requests):
        check(pb_utils.get_input_tensor_by_name(requests[0], "X").as_numpy())
`;

const CRASHER = `
import os
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        x = pb_utils.get_input_tensor_by_name(requests[0], "X").as_numpy()
        if x[0] < 0:
            os._exit(3)
        return [pb_utils.InferenceResponse([pb_utils.Tensor("Y", x)]) for _ in requests]
`;

const BATCH = `
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        n = len(requests)
        return [pb_utils.InferenceResponse([pb_utils.Tensor("N", np.full((1, 1), n, dtype=np.int32))]) for _ in requests]
`;

const STUCK = `
import time
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        x = pb_utils.get_input_tensor_by_name(requests[0], "X").as_numpy()
        while x[0] < 0:
            time.sleep(0.01)
        return [pb_utils.InferenceResponse([pb_utils.Tensor("Y", x)])]
`;

const LOUD = `
import sys
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        for i in range(50000):
            print("line", i, "x" * 100)
        sys.stdout.write("y" * 3_000_000 + "\\n")
        pb_utils.Logger.log_warn("done printing")
        x = pb_utils.get_input_tensor_by_name(requests[0], "X").as_numpy()
        return [pb_utils.InferenceResponse([pb_utils.Tensor("Y", x)])]
`;

const TWO_RESPONSES = `
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        x = pb_utils.get_input_tensor_by_name(requests[0], "X").as_numpy()
        return [pb_utils.InferenceResponse([pb_utils.Tensor("Y", x)]) for _ in range(len(requests) + 1)]
`;

const WRONG_DTYPE = `
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        return [pb_utils.InferenceResponse([pb_utils.Tensor("Y", np.array([1], dtype=np.int64))]) for _ in requests]
`;

// Calls `crasher` (FP32 X) through BLS with an INT64 X and answers the call's error message as ERR.
const BLS_WRONG_DTYPE = `
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        call = pb_utils.InferenceRequest(model_name="crasher", requested_output_names=["Y"],
            inputs=[pb_utils.Tensor("X", np.array([1], dtype=np.int64))])
        err = call.exec().error().message()
        return [pb_utils.InferenceResponse([pb_utils.Tensor("ERR", np.array([err.encode()], dtype=np.object_))]) for _ in requests]
`;

// X > 0: forks a child that sleeps for a minute and answers its pid; X < 0: the instance dies.
const FORKER = `
import os, time
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        x = float(pb_utils.get_input_tensor_by_name(requests[0], "X").as_numpy()[0])
        if x < 0:
            os._exit(3)
        pid = os.fork()
        if pid == 0:
            time.sleep(60)
            os._exit(0)
        return [pb_utils.InferenceResponse([pb_utils.Tensor("PID", np.array([pid], np.int64))])]
`;

// Y = the stub's pid, shaped as X. An X above 0 holds `execute` until the file `release` exists in the model's
// directory (noting `executing` there first). `initialize` starts a sleeping child and notes its pid in
// `child.pid`; `finalize` appends the stub's pid to `finalized`.
const FINALIZING = `
import os, subprocess, time
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def initialize(self, args):
        self.dir = args["model_repository"]
        self.child = subprocess.Popen(["sleep", "3600"])
        with open(os.path.join(self.dir, "child.pid"), "w") as f:
            f.write(str(self.child.pid))

    def execute(self, requests):
        out = []
        for r in requests:
            x = pb_utils.get_input_tensor_by_name(r, "X").as_numpy()
            if x.flat[0] > 0:
                open(os.path.join(self.dir, "executing"), "w").close()
                while not os.path.exists(os.path.join(self.dir, "release")):
                    time.sleep(0.02)
            out.append(pb_utils.InferenceResponse([pb_utils.Tensor("Y", np.full(x.shape, os.getpid(), np.float32))]))
        return out

    def finalize(self):
        with open(os.path.join(self.dir, "finalized"), "a") as f:
            f.write("%d\\n" % os.getpid())
`;

const tensor = (name: string, type: string, dims: string) => `{ name: "${name}" data_type: ${type} dims: [ ${dims} ] }`;

const MODELS: Record<string, { py: string; config: string }> = {
  add_sub: {
    py: ADD_SUB,
    config: `backend: "python"\ninput [ ${tensor('INPUT0', 'TYPE_FP32', '4')}, ${tensor('INPUT1', 'TYPE_FP32', '4')} ]\noutput [ ${tensor('OUTPUT0', 'TYPE_FP32', '4')}, ${tensor('OUTPUT1', 'TYPE_FP32', '4')} ]\ninstance_group [{ count: 1 kind: KIND_CPU }]`,
  },
  repeat: {
    py: REPEAT,
    config: `backend: "python"\nmodel_transaction_policy { decoupled: true }\ninput [ ${tensor('IN', 'TYPE_INT32', '-1')} ]\noutput [ ${tensor('OUT', 'TYPE_INT32', '1')} ]\ninstance_group [{ count: 1 kind: KIND_CPU }]`,
  },
  bls: {
    py: BLS,
    config: `backend: "python"\ninput [ ${tensor('X', 'TYPE_FP32', '4')} ]\noutput [ ${tensor('Y', 'TYPE_FP32', '4')}, ${tensor('ERR', 'TYPE_STRING', '1')}, ${tensor('STREAM', 'TYPE_INT32', '-1')} ]\ninstance_group [{ count: 1 kind: KIND_CPU }]`,
  },
  raiser: {
    py: RAISER,
    config: `backend: "python"\ninput [ ${tensor('X', 'TYPE_FP32', '2')} ]\noutput [ ${tensor('Y', 'TYPE_FP32', '2')} ]\ninstance_group [{ count: 1 kind: KIND_CPU }]`,
  },
  crasher: {
    py: CRASHER,
    config: `backend: "python"\ninput [ ${tensor('X', 'TYPE_FP32', '1')} ]\noutput [ ${tensor('Y', 'TYPE_FP32', '1')} ]\ninstance_group [{ count: 1 kind: KIND_CPU }]`,
  },
  batch: {
    py: BATCH,
    config: `backend: "python"\nmax_batch_size: 8\ndynamic_batching { max_queue_delay_microseconds: 50000 }\ninput [ ${tensor('X', 'TYPE_FP32', '1')} ]\noutput [ ${tensor('N', 'TYPE_INT32', '1')} ]\ninstance_group [{ count: 1 kind: KIND_CPU }]`,
  },
  env_path: {
    py: ADD_SUB,
    config: `backend: "python"\nparameters: { key: "EXECUTION_ENV_PATH", value: { string_value: "$$TRITON_MODEL_DIRECTORY/env.tar.gz" } }\ninput [ ${tensor('INPUT0', 'TYPE_FP32', '4')}, ${tensor('INPUT1', 'TYPE_FP32', '4')} ]\noutput [ ${tensor('OUTPUT0', 'TYPE_FP32', '4')}, ${tensor('OUTPUT1', 'TYPE_FP32', '4')} ]\ninstance_group [{ count: 1 kind: KIND_CPU }]`,
  },
  forker: {
    py: FORKER,
    config: `backend: "python"\ninput [ ${tensor('X', 'TYPE_FP32', '1')} ]\noutput [ ${tensor('PID', 'TYPE_INT64', '1')} ]\ninstance_group [{ count: 1 kind: KIND_CPU }]`,
  },
  stuck: {
    py: STUCK,
    config: `backend: "python"\ninput [ ${tensor('X', 'TYPE_FP32', '1')} ]\noutput [ ${tensor('Y', 'TYPE_FP32', '1')} ]\ninstance_group [{ count: 1 kind: KIND_CPU }]`,
  },
  loud: {
    py: LOUD,
    config: `backend: "python"\ninput [ ${tensor('X', 'TYPE_FP32', '1')} ]\noutput [ ${tensor('Y', 'TYPE_FP32', '1')} ]\ninstance_group [{ count: 1 kind: KIND_CPU }]`,
  },
  two_responses: {
    py: TWO_RESPONSES,
    config: `backend: "python"\ninput [ ${tensor('X', 'TYPE_FP32', '1')} ]\noutput [ ${tensor('Y', 'TYPE_FP32', '1')} ]\ninstance_group [{ count: 1 kind: KIND_CPU }]`,
  },
  finalizing: {
    py: FINALIZING,
    config: `backend: "python"\ninput [ ${tensor('X', 'TYPE_FP32', '1')} ]\noutput [ ${tensor('Y', 'TYPE_FP32', '1')} ]\ninstance_group [{ count: 1 kind: KIND_CPU }]`,
  },
  finalizing_batched: {
    py: FINALIZING,
    config: `backend: "python"\nmax_batch_size: 4\ndynamic_batching { }\ninput [ ${tensor('X', 'TYPE_FP32', '1')} ]\noutput [ ${tensor('Y', 'TYPE_FP32', '1')} ]\ninstance_group [{ count: 1 kind: KIND_CPU }]`,
  },
  bls_wrong_dtype: {
    py: BLS_WRONG_DTYPE,
    config: `backend: "python"\ninput [ ${tensor('X', 'TYPE_FP32', '1')} ]\noutput [ ${tensor('ERR', 'TYPE_STRING', '1')} ]\ninstance_group [{ count: 1 kind: KIND_CPU }]`,
  },
  wrong_dtype: {
    py: WRONG_DTYPE,
    config: `backend: "python"\ninput [ ${tensor('X', 'TYPE_FP32', '1')} ]\noutput [ ${tensor('Y', 'TYPE_FP32', '1')} ]\ninstance_group [{ count: 1 kind: KIND_CPU }]`,
  },
};

/** The well-behaved models (the hostile ones are written only where a test asks for them). */
const WELL_BEHAVED = ['add_sub', 'repeat', 'bls', 'raiser', 'crasher', 'batch', 'env_path'];

/** Writes the named test models (`<dir>/<name>/config.pbtxt`, `<dir>/<name>/1/model.py`). */
export function writePythonModels(dir: string, names: string[] = WELL_BEHAVED): void {
  for (const name of names) {
    const m = MODELS[name]!;
    mkdirSync(join(dir, name, '1'), { recursive: true });
    writeFileSync(join(dir, name, 'config.pbtxt'), `name: "${name}"\n${m.config}\n`);
    writeFileSync(join(dir, name, '1', 'model.py'), m.py.trimStart());
  }
}

/**
 * Writes one Python-backend model into `repo`: `<name>/config.pbtxt` and `<name>/1/model.py`.
 * @example writePythonModel(repo, 'm', 'backend: "python"\n…', 'class TritonPythonModel: …')
 */
export function writePythonModel(repo: string, name: string, config: string, modelPy: string): void {
  mkdirSync(join(repo, name, '1'), { recursive: true });
  writeFileSync(join(repo, name, 'config.pbtxt'), config);
  writeFileSync(join(repo, name, '1', 'model.py'), modelPy);
}
