/**
 * Turns off onnxruntime's telemetry for this process unless the user chose otherwise (ORT_DISABLE_TELEMETRY=0).
 * On Linux, onnxruntime-node starts Microsoft's 1DS telemetry with the process's first session: it leaves an empty
 * `mat-debug-<pid>.log` and a `.ses` file in the temp directory on every start (nothing removes them) and queues
 * events in ~/.cache/Microsoft/DeveloperTools. The runtime reads the variable from the process environment when
 * that first session is created (in any thread), so a process entry point calls this before it makes an engine.
 */
export function disableOnnxRuntimeTelemetry(): void {
  process.env.ORT_DISABLE_TELEMETRY ??= '1';
}
