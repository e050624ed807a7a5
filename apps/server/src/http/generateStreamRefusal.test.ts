import { describe, expect, it } from 'vitest';
import { testServerPerFile } from '../testing/testServerPerFile.ts';

// No run may start or wait: every generate_stream is refused after its SSE headers went out.
const s = testServerPerFile({ limits: { maxConcurrentRuns: 0, maxQueuedRuns: 0 } });

describe('generate_stream refused after the stream started', () => {
  it('sends the refusal as an error event instead of an empty stream', async () => {
    const r = await fetch(`${s.url}/v2/models/extractor/generate_stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ x: [new Array(64).fill(1)] }),
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/text\/event-stream/);
    const body = await r.text();
    expect(body).toMatch(/^data: \{"error":"too many runs in flight.*maxConcurrentRuns=0.*maxQueuedRuns=0\)"\}\n\n$/);
  });

  it('generate (not streamed) answers the refusal with its status', async () => {
    const r = await fetch(`${s.url}/v2/models/extractor/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ x: [new Array(64).fill(1)] }),
    });
    expect(r.status).toBe(503);
    expect(((await r.json()) as { error: string }).error).toMatch(/maxConcurrentRuns=0/);
  });
});
