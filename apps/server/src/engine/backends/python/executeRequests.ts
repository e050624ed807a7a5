import type { FrameWriter } from './frames.ts';
import type { PyExecute } from './pythonTypes.ts';

/**
 * The requests of an `execute` frame (PROTOCOL.md) as the stub reads them into `pb_utils.InferenceRequest`s: each
 * input tensor described through `w` (its bytes in the frame's blob, or placed in the shared region).
 */
export function executeRequests(w: FrameWriter, body: PyExecute): Record<string, unknown>[] {
  return body.requests.map((r) => ({
    inputs: w.tensors(Object.entries(r.inputs)),
    requested_output_names: r.requestedOutputs ?? [],
    correlation_id: r.correlationId ?? 0,
    request_id: r.requestId ?? '',
    flags: r.flags ?? 0,
    parameters: r.parameters ? JSON.stringify(r.parameters) : '{}',
    timeout: 0,
  }));
}
