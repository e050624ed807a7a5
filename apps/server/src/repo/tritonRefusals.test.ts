import { describe, expect, it } from 'vitest';
import { writePythonModel } from '../testing/pythonModels.ts';
import { tempDir } from '../testing/tempDir.ts';
import { loadRepository } from './loadRepository.ts';
import { tritonRefusals } from './tritonRefusals.ts';

function pythonModel(repo: string, name: string, extra: string): void {
  writePythonModel(
    repo,
    name,
    `backend: "python"\ninput [{ name: "X", data_type: TYPE_FP32, dims: [ 1 ] }]\noutput [{ name: "Y", data_type: TYPE_FP32, dims: [ 1 ] }]\n${extra}\n`,
    'class TritonPythonModel:\n    pass\n',
  );
}

describe('tritonRefusals', () => {
  it("names each model Triton would refuse to load, in Triton's words, and no other", async () => {
    const repo = tempDir('refusals-');
    pythonModel(repo, 'fine', 'response_cache { enable: true }');
    pythonModel(repo, 'streamer', 'response_cache { enable: true }\nmodel_transaction_policy { decoupled: true }');
    expect(tritonRefusals(await loadRepository(repo))).toEqual([
      "model 'streamer': Response Cache does not currently support model streamer with 'decoupled' transaction policy. Please disable the response cache.",
    ]);
  });
});
