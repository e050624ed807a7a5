/**
 * Triton's `InferenceRequest::LogRequest()` (core src/infer_request.h): the prefix of the messages of its request
 * checks (`Normalize`, `ValidateRequestInputs`, `AddOriginalInput`) and of an ensemble's deadlock, `[request id: <id>] `,
 * `<id_unknown>` when the request carries no id. An ensemble's step request carries the ensemble request's id.
 * @example logRequest(undefined) // '[request id: <id_unknown>] '
 */
export function logRequest(id: string | undefined): string {
  return `[request id: ${id ? id : '<id_unknown>'}] `;
}
