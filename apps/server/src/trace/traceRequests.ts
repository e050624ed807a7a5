import { isObj } from '@ensemble-studio/core';
import { badRequest } from '../http/errors.ts';
import { TENSORS, TIMESTAMPS } from './traceSetting.ts';
import { fileFixed, type NewSetting, type TraceSettingsJson } from './traceSettings.ts';

// The trace extension's requests as Triton's endpoints read them (server:src/http_server.cc `HandleTrace`,
// src/grpc/grpc_server.cc `OnExecuteTrace`): the same settings, as JSON strings over HTTP and lists of strings over
// gRPC, with Triton's checks and messages.

/** A gRPC `TraceSettingRequest.SettingValue` as proto-loader decodes it. */
interface WireValue {
  value?: string[];
}

const INT32_MAX = 2 ** 31 - 1;
const UINT32_MAX = 2 ** 32 - 1;

/** The numeric settings: their JSON and gRPC names, the bounds Triton's messages state, and their `NewSetting` key. */
const NUMBERS = [
  { name: 'trace_rate', key: 'rate', min: 0, max: UINT32_MAX, unsigned: true },
  { name: 'trace_count', key: 'count', min: -1, max: INT32_MAX, unsigned: false },
  { name: 'log_frequency', key: 'logFrequency', min: 0, max: UINT32_MAX, unsigned: true },
] as const;

/**
 * `POST /v2[/models/{m}]/trace/setting`'s body as Triton reads it: `trace_level` an array of names (`OFF` alone, or
 * `TIMESTAMPS` and/or `TENSORS`), the others decimal strings, `null` to clear a value, `trace_file` refused.
 * @throws ApiError with Triton's status and message.
 * @example traceSettingFromJson({ trace_rate: '10', trace_count: null }) // { rate: 10, count: null }
 */
export function traceSettingFromJson(body: unknown): NewSetting {
  const out: NewSetting = {};
  // JSON that is not an object names no setting: Triton's reader finds none in it.
  if (!isObj(body)) return out;
  const has = (k: string) => Object.hasOwn(body, k);
  if (has('trace_file')) throw fileFixed();
  if (has('trace_level')) {
    const v = body.trace_level;
    if (v === null) out.level = null;
    else {
      if (!Array.isArray(v)) throw badRequest('attempt to access JSON non-array as array');
      if (!v.every((x) => typeof x === 'string')) throw badRequest('attempt to access JSON non-string as string');
      const level = levelOf(v as string[]);
      if (level !== undefined) out.level = level;
    }
  }
  for (const n of NUMBERS) {
    if (!has(n.name)) continue;
    const v = body[n.name];
    if (v === null) out[n.key] = null;
    else if (typeof v !== 'string') throw badRequest('attempt to access JSON non-string as string');
    else out[n.key] = numberOf(n, v, ':');
  }
  return out;
}

/**
 * A gRPC `TraceSettingRequest`'s settings as Triton reads them: each a list of strings, an empty list clearing the
 * value, more than one refused for a number.
 * @throws ApiError with Triton's status and message.
 */
export function traceSettingFromGrpc(settings: Record<string, WireValue> | undefined): NewSetting {
  const s = settings ?? {};
  const get = (k: string) => (Object.hasOwn(s, k) ? (s[k]?.value ?? []) : undefined);
  const out: NewSetting = {};
  if (get('trace_file')) throw fileFixed();
  const level = get('trace_level');
  if (level) {
    if (level.length === 0) out.level = null;
    else {
      const l = levelOf(level);
      if (l !== undefined) out.level = l;
    }
  }
  for (const n of NUMBERS) {
    const v = get(n.name);
    if (!v) continue;
    if (v.length === 0) out[n.key] = null;
    else if (v.length > 1) throw badRequest(`expect only 1 value for '${n.name}'`);
    else out[n.key] = numberOf(n, v[0]!, ': ');
  }
  return out;
}

/** The settings as a gRPC `TraceSettingResponse`. */
export function traceSettingsToGrpc(json: TraceSettingsJson): { settings: Record<string, { value: string[] }> } {
  return {
    settings: Object.fromEntries(
      Object.entries(json).map(([k, v]) => [k, { value: Array.isArray(v) ? v : [String(v)] }]),
    ),
  };
}

/** Level names to bits: `OFF` only alone; names Triton does not know are passed over; none named: no change. */
function levelOf(names: string[]): number | undefined {
  let level: number | undefined;
  for (const name of names) {
    if (name === 'OFF') {
      if (names.length !== 1) throw badRequest("Expect only one trace level 'OFF' is specified");
      level = 0;
    } else if (name === 'TIMESTAMPS') level = (level ?? 0) | TIMESTAMPS;
    else if (name === 'TENSORS') level = (level ?? 0) | TENSORS;
  }
  return level;
}

/**
 * A setting's number as C++'s `std::stoi` reads it (leading blanks, a sign, the digits that follow; the rest
 * ignored), in the setting's range; a rate or frequency below 0 wraps as Triton's uint32 does.
 */
function numberOf(n: (typeof NUMBERS)[number], text: string, gotSeparator: ':' | ': '): number {
  const prefix = `Unable to parse '${n.name}'`;
  const m = /^[ \t\n\v\f\r]*([+-]?\d+)/.exec(text);
  if (!m) throw badRequest(`${prefix}, got: ${text}`);
  const v = Number(m[1]);
  if (v < -(2 ** 31) || v > INT32_MAX)
    throw badRequest(`${prefix}, value is out of range [ ${n.min}, ${n.max} ], got: ${text}`);
  if (!n.unsigned && v < n.min)
    // HTTP's message has no space after "got:" here, gRPC's has one: both as Triton words them.
    throw badRequest(`${prefix}. Expecting value >= ${n.min}, got${gotSeparator}${text}`);
  return n.unsigned ? v >>> 0 : v;
}
