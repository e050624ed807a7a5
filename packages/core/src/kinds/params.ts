/** A parameter of a node kind or op, described as data so web renders it and validate checks it. */
export type ParamSpec =
  | {
      name: string;
      label: string;
      type: 'number' | 'integer';
      default: number;
      min?: number;
      max?: number;
      help?: string;
    }
  | { name: string; label: string; type: 'string'; default: string; help?: string }
  | { name: string; label: string; type: 'boolean'; default: boolean; help?: string }
  | { name: string; label: string; type: 'enum'; default: string; options: readonly string[]; help?: string };

/** Port of a node: dtype/shape null = inferred from what is connected. `shape` is the FULL shape (batch dim included). */
export interface PortSpec {
  name: string;
  datatype: import('../tensor/dtype.ts').DataType | null;
  shape: number[] | null;
  optional?: boolean;
}

/** Returns a message when `value` does not satisfy `spec`, else undefined. */
export function checkParam(spec: ParamSpec, value: unknown): string | undefined {
  switch (spec.type) {
    case 'number':
    case 'integer': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return `${spec.name} must be a number`;
      if (spec.type === 'integer' && !Number.isInteger(value)) return `${spec.name} must be an integer`;
      if (spec.min !== undefined && value < spec.min) return `${spec.name} must be ≥ ${spec.min} (got ${value})`;
      if (spec.max !== undefined && value > spec.max) return `${spec.name} must be ≤ ${spec.max} (got ${value})`;
      return undefined;
    }
    case 'string':
      return typeof value === 'string' ? undefined : `${spec.name} must be a string`;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `${spec.name} must be true or false`;
    case 'enum':
      return spec.options.includes(String(value))
        ? undefined
        : `${spec.name} must be one of ${spec.options.join(', ')}`;
  }
}
