import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

// `ws` unmasks every client frame on the main thread. Without its optional native helper (`bufferutil`) it does so
// one byte at a time in JavaScript: 55 ms for a 34 MB message, during which no other client is answered.
describe('the WebSocket server unmasks frames natively', () => {
  it('ws resolves bufferutil and loads its native addon, not the JavaScript fallback', () => {
    const wsEntry = createRequire(import.meta.url).resolve('ws');
    createRequire(wsEntry)('./lib/buffer-util.js');
    const report = process.report.getReport() as { sharedObjects: string[] };
    expect(report.sharedObjects.some((s) => s.endsWith('bufferutil.node'))).toBe(true);
  });
});
