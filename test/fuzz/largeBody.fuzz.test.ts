// Large hostile bodies against a real server: KServe infer bodies and WebSocket run.start messages over the 1 MiB
// that is parsed on the main thread, so they go through the body worker. Each is a valid large request whose small
// skeleton (names, shapes, types, parameters) is mutated and whose bulk is one of several large payloads (valid
// numbers, a bad element deep inside, nesting, one huge string or name). Invariant: a 4xx JSON error with a capped
// message or a correct result, never a 5xx; the socket keeps answering; a bystander's runs stay correct.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../apps/server/src/main.ts';
import { MAX_ERROR_MESSAGE } from '../../apps/server/src/http/errors.ts';
import { FUZZ_RUNS } from '../support/fuzz.ts';
import { PROTOTYPE_NAMES } from '../support/hostileNames.ts';
import { mutateJson } from '../support/mutate.ts';
import { http, startStudio } from '../support/server.ts';
import { connect } from '../support/wsClient.ts';

const ROWS = 6000; // 384,000 FP32 elements: about 1.3 MB of JSON, over the inline-parse threshold
const BODY_LIMIT = 8 * 1024 * 1024;
// Each case moves megabytes: one for every 60 small KServe cases (16 at the default scale).
const CASES = Math.max(1, Math.round(FUZZ_RUNS.kserve / 60));
const BULK = '"__bulk__"';
const cappedLength = MAX_ERROR_MESSAGE + 100;

let server: RunningServer;
beforeAll(async () => {
  // The limits hold outputs too: pipe's extractor answers ROWS × 256 = 1,536,000 elements for the valid body.
  server = await startStudio({
    limits: { maxBodyBytes: BODY_LIMIT, maxWsMessageBytes: BODY_LIMIT, maxTensorElements: 2_000_000 },
  });
}, 120_000);
afterAll(async () => {
  await server?.close();
});

/** The large part of a body, as JSON text, and whether it is valid data for `x` [ROWS, 64]. */
const bulk = fc.constantFrom<{ kind: string; text: () => string }>(
  { kind: 'numbers', text: () => JSON.stringify(numbers()) },
  { kind: 'bad element inside', text: () => JSON.stringify(numbers()).replace(/,-3,/, ',"abc",') },
  { kind: 'rows nested', text: () => JSON.stringify(rows()) },
  { kind: 'one huge string', text: () => JSON.stringify('s'.repeat(1_500_000)) },
  { kind: 'numbers then garbage', text: () => JSON.stringify(numbers()).slice(0, -1) + ',}' },
  { kind: 'overflowing numbers', text: () => JSON.stringify(numbers()).replace(/-3/g, '1e39') },
);
const numbers = () => Array.from({ length: ROWS * 64 }, (_, i) => (i % 7) - 3);
const rows = () => {
  const flat = numbers();
  return Array.from({ length: ROWS }, (_, r) => flat.slice(r * 64, r * 64 + 64));
};

/** A large request: its skeleton mutated (maybe), its bulk spliced in where the data was (or as a stray key). */
const largeCase = fc.record({
  bulk,
  mutations: fc.nat({ max: 3 }),
  rand: fc.infiniteStream(fc.nat()),
  name: fc.constantFrom('x', 'x', 'x', 'n'.repeat(200_000), ...PROTOTYPE_NAMES),
});

type LargeCase = typeof largeCase extends fc.Arbitrary<infer T> ? T : never;

function bodyText(c: LargeCase, skeleton: unknown): string {
  const doc = c.mutations === 0 ? skeleton : mutateJson(skeleton, c.rand, c.mutations);
  const text = JSON.stringify(doc);
  if (text?.includes(BULK)) return text.replace(BULK, c.bulk.text());
  // The mutations removed the data: keep the body large with a stray key.
  return JSON.stringify({ pad: 'p'.repeat(1_500_000), doc });
}

describe('fuzz: large bodies', () => {
  it(`${CASES} large KServe infer bodies get a capped 4xx JSON error or a correct result, never a 5xx`, async () => {
    const kinds = new Map<string, number[]>();
    for (const c of fc.sample(largeCase, { numRuns: CASES, seed: 23 })) {
      const skeleton = { inputs: [{ name: c.name, datatype: 'FP32', shape: [ROWS, 64], data: '__bulk__' }] };
      const body = bodyText(c, skeleton);
      const r = await http(`${server.url}/v2/models/pipe/infer`, { method: 'POST', body });
      kinds.set(c.bulk.kind, [...(kinds.get(c.bulk.kind) ?? []), r.status]);
      expect(r.status, `${c.bulk.kind}: ${r.text.slice(0, 300)}`).toBeLessThan(500);
      if (r.status >= 400) {
        expect(typeof r.json?.error, r.text.slice(0, 300)).toBe('string');
        expect(r.json.error.length).toBeLessThan(cappedLength);
      } else {
        expect(r.json.outputs[0].shape).toEqual([ROWS, 16]);
      }
    }
    // The unmutated valid payload is answered with a result, the rest refused.
    const valid = await http(`${server.url}/v2/models/pipe/infer`, {
      method: 'POST',
      body: JSON.stringify({ inputs: [{ name: 'x', datatype: 'FP32', shape: [ROWS, 64], data: numbers() }] }),
    });
    expect(valid.status, valid.text.slice(0, 300)).toBe(200);
    for (const [kind, statuses] of kinds) console.log(`large bodies: ${kind} → ${statuses.join(' ')}`);
  });

  it(`${CASES} large WebSocket run.start messages get an error or a run result; the socket and a bystander carry on`, async () => {
    const hostile = await connect(server.url);
    const bystander = await connect(server.url);
    try {
      for (const [i, c] of fc.sample(largeCase, { numRuns: CASES, seed: 29 }).entries()) {
        const skeleton = {
          type: 'run.start',
          requestId: `big${i}`,
          graph: 'pipe',
          inputs: { [c.name]: { datatype: 'FP32', shape: [ROWS, 64], data: '__bulk__' } },
        };
        const from = hostile.messages.length;
        hostile.sendRaw(bodyText(c, skeleton));
        // A ping behind the large message is answered after it, in order: the reply to the large one came first.
        await hostile.roundTrip(60_000);
        const replies = hostile.messages.slice(from).filter((m) => m.type !== 'pong');
        for (const m of replies.filter((x) => x.type === 'error' || x.type === 'run.failed'))
          expect(m.error.message.length, JSON.stringify(m).slice(0, 300)).toBeLessThan(cappedLength);
        expect(replies.filter((m) => m.type === 'error' && m.error.code === 'internal')).toEqual([]);
        bystander.send({ type: 'ping', at: i });
        await bystander.next((m) => m.type === 'pong' && m.at === i, 30_000);
      }
      expect(hostile.isOpen()).toBe(true);
    } finally {
      hostile.close();
      bystander.close();
    }
  });
});
