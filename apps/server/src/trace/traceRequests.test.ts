import { describe, expect, it } from 'vitest';
import { traceSettingFromGrpc, traceSettingFromJson, traceSettingsToGrpc } from './traceRequests.ts';

// The trace extension's request bodies read as Triton's HTTP and gRPC endpoints read them, with their messages.

describe('traceSettingFromJson (POST /v2[/models/{m}]/trace/setting)', () => {
  it('reads levels, strings of numbers as std::stoi reads them, and null to clear', () => {
    expect(
      traceSettingFromJson({
        trace_level: ['TIMESTAMPS', 'TENSORS'],
        trace_rate: ' 10x',
        trace_count: '-1',
        log_frequency: null,
      }),
    ).toEqual({ level: 3, rate: 10, count: -1, logFrequency: null });
    expect(traceSettingFromJson({ trace_level: ['OFF'] })).toEqual({ level: 0 });
    // Names Triton does not know are passed over; none it knows: no change.
    expect(traceSettingFromJson({ trace_level: ['LOUD'] })).toEqual({});
    expect(traceSettingFromJson([1, 2])).toEqual({});
    // A negative rate wraps as Triton's uint32 does.
    expect(traceSettingFromJson({ trace_rate: '-1' })).toEqual({ rate: 4294967295 });
  });

  it("refuses what Triton refuses, in Triton's words", () => {
    const refusal = (body: unknown) => {
      try {
        traceSettingFromJson(body);
      } catch (err) {
        return [(err as { status: number }).status, (err as Error).message];
      }
      return undefined;
    };
    expect(refusal({ trace_file: 'x' })).toEqual([
      501,
      'trace file location can not be updated through network protocol',
    ]);
    expect(refusal({ trace_level: ['OFF', 'TIMESTAMPS'] })).toEqual([
      400,
      "Expect only one trace level 'OFF' is specified",
    ]);
    expect(refusal({ trace_level: 'TIMESTAMPS' })).toEqual([400, 'attempt to access JSON non-array as array']);
    expect(refusal({ trace_rate: 5 })).toEqual([400, 'attempt to access JSON non-string as string']);
    expect(refusal({ trace_rate: 'abc' })).toEqual([400, "Unable to parse 'trace_rate', got: abc"]);
    expect(refusal({ trace_rate: '99999999999' })).toEqual([
      400,
      "Unable to parse 'trace_rate', value is out of range [ 0, 4294967295 ], got: 99999999999",
    ]);
    expect(refusal({ trace_count: '-2' })).toEqual([
      400,
      "Unable to parse 'trace_count'. Expecting value >= -1, got:-2",
    ]);
  });
});

describe('traceSettingFromGrpc (TraceSetting)', () => {
  it('reads lists of strings: an empty one clears, more than one is refused for a number', () => {
    expect(
      traceSettingFromGrpc({
        trace_level: { value: ['TENSORS'] },
        trace_rate: { value: [] },
        trace_count: { value: ['4'] },
      }),
    ).toEqual({ level: 2, rate: null, count: 4 });
    expect(() => traceSettingFromGrpc({ trace_rate: { value: ['1', '2'] } })).toThrow(
      "expect only 1 value for 'trace_rate'",
    );
    expect(() => traceSettingFromGrpc({ trace_count: { value: ['-5'] } })).toThrow(
      "Unable to parse 'trace_count'. Expecting value >= -1, got: -5",
    );
    expect(() => traceSettingFromGrpc({ trace_file: { value: ['x'] } })).toThrow('can not be updated through network');
  });

  it('answers every setting as a list of strings', () => {
    expect(
      traceSettingsToGrpc({
        trace_level: ['TIMESTAMPS'],
        trace_rate: '1',
        trace_count: '-1',
        log_frequency: '0',
        trace_file: 't.json',
        trace_mode: 'triton',
      }).settings,
    ).toEqual({
      trace_level: { value: ['TIMESTAMPS'] },
      trace_rate: { value: ['1'] },
      trace_count: { value: ['-1'] },
      log_frequency: { value: ['0'] },
      trace_file: { value: ['t.json'] },
      trace_mode: { value: ['triton'] },
    });
  });
});
