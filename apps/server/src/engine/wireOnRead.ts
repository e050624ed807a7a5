import type { Tensor, WireTensor } from '@ensemble-studio/core';
import { toWire } from './tensors.ts';

/**
 * The outputs in KServe JSON form, each converted only when it is read (and then kept). The terminal event carries
 * them for `studio run`, which prints them; the WebSocket client sends large outputs as binary frames and never reads
 * these, and converting a 5.3 M-element output to a JSON array held the main thread ~240 ms.
 * @example const outputs = wireOnRead(result.outputs); JSON.stringify(outputs) // converts every output
 */
export function wireOnRead(outputs: Record<string, Tensor>): Record<string, WireTensor> {
  const out: Record<string, WireTensor> = {};
  for (const [name, t] of Object.entries(outputs)) {
    let wire: WireTensor | undefined;
    Object.defineProperty(out, name, { enumerable: true, get: () => (wire ??= toWire(t)) });
  }
  return out;
}
