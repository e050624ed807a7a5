// The eighteenth hostile-input round, as a regression case against a real `studio serve` started fresh, with the
// main thread's turns measured from inside it (turnLog.ts). One gRPC metadata value longer than 64 KiB as sent ended
// the whole connection (nghttp2's HPACK decoder: GOAWAY COMPRESSION_ERROR), which gRPC C-core clients retry as never
// processed until their deadline, or without end. Triton refuses the one request, RESOURCE_EXHAUSTED over C-core's
// hard metadata limit, and keeps the connection. The gRPC listener now reads each header block that could carry such
// a field before Node's HTTP/2 does and puts a mark in the field's place (HeaderBlockGuard).
import { describe, expect, it } from 'vitest';
import { connectTestClient } from '../../apps/server/src/testing/grpcTestClient.ts';
import { expectTurnUnder, longest, monitoredExamplesStudio, watched } from './turnLog.ts';

const BOUND_CPU_MS = 50;
const AFTER_MS = 300;
const [OK, RESOURCE_EXHAUSTED] = [0, 8];

const studio = monitoredExamplesStudio();

describe('hostile input, eighteenth round', () => {
  it('one gRPC metadata value over 64 KiB (70 KB, 1 MB) is refused as Triton refuses it; the connection serves on', async () => {
    const client = connectTestClient(studio().grpcAddress);
    // '#' has a 12-bit Huffman code, so the client sends the value as it is, as long as it is.
    const live = async (value: string) => {
      try {
        await client.callWithMetadata('ServerLive', {}, [['x-big', value]]);
        return { code: OK, details: '' };
      } catch (err) {
        return { code: (err as { code: number }).code, details: (err as { details: string }).details };
      }
    };
    try {
      for (const size of [70_000, 1_000_000]) {
        const w = await watched(studio().studio.url, () => live('#'.repeat(size)));
        await new Promise((r) => setTimeout(r, AFTER_MS));
        const { cpu } = longest(studio().turns(w.fromMs, w.toMs + AFTER_MS));
        console.log(
          `${size}-byte metadata value → ${w.result.code} ${w.result.details}; longest turn ${cpu?.cpuMs ?? 0} ms CPU, ` +
            `bystander worst ${Math.max(0, ...w.latenciesMs)} ms`,
        );
        // C-core counts the field as its name, value and 32; the request's other headers add a few hundred bytes.
        const n = Number(
          /^received metadata size exceeds hard limit \((\d+) vs\. 16384\)$/.exec(w.result.details)?.[1],
        );
        expect(w.result.code).toBe(RESOURCE_EXHAUSTED);
        expect(n - size).toBeGreaterThan('x-big'.length + 32);
        expect(n - size).toBeLessThan(1000);
        expectTurnUnder(cpu, BOUND_CPU_MS);
        // The same connection answers the next call.
        expect(await live('small')).toEqual({ code: OK, details: '' });
      }
    } finally {
      client.close();
    }
  });
});
