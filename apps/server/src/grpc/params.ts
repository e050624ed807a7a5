/** An `InferParameter` as proto-loader gives it: every choice present, `parameter_choice` naming the set one. */
export interface WireParameter {
  parameter_choice?: 'bool_param' | 'int64_param' | 'string_param' | 'double_param' | 'uint64_param';
  bool_param?: boolean;
  int64_param?: string | number;
  string_param?: string;
  double_param?: number;
  uint64_param?: string | number;
}

/** A 64-bit integer sent as a decimal string: a number when it is exact, else the string itself. */
function integerValue(v: string | number | undefined): number | string {
  const n = Number(v ?? 0);
  return Number.isSafeInteger(n) ? n : String(v);
}

/**
 * A request's `parameters` map as plain values (what the HTTP handlers read from JSON). A 64-bit id
 * above 2^53 stays a decimal string, so it still names one sequence rather than a rounded neighbour.
 * @example plainParameters({ sequence_id: { parameter_choice: 'int64_param', int64_param: '7' } }) // { sequence_id: 7 }
 */
export function plainParameters(params: Record<string, WireParameter> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, p] of Object.entries(params ?? {})) {
    switch (p.parameter_choice) {
      case 'bool_param':
        out[key] = p.bool_param === true;
        break;
      case 'string_param':
        out[key] = p.string_param ?? '';
        break;
      case 'double_param':
        out[key] = p.double_param ?? 0;
        break;
      case 'int64_param':
        out[key] = integerValue(p.int64_param);
        break;
      case 'uint64_param':
        out[key] = integerValue(p.uint64_param);
        break;
      default:
        break;
    }
  }
  return out;
}

/**
 * One plain value as an `InferParameter` for a response.
 * @example wireParameter(true) // { bool_param: true }
 */
export function wireParameter(value: boolean | number | string): WireParameter {
  if (typeof value === 'boolean') return { bool_param: value };
  if (typeof value === 'string') return { string_param: value };
  return Number.isInteger(value) ? { int64_param: value } : { double_param: value };
}
