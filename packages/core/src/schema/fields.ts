// The building blocks of every schema over untrusted JSON, each carrying the message our errors use
// (`must be an integer`); `issueMessage` puts the field's path in front of it.
import * as v from 'valibot';
import { shown } from './issues.ts';

export type Obj = Record<string, unknown>;

/** A JSON object (not null, not an array). */
export const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);

/** A missing field reads as a field of the wrong type would: its own schema's message (`must be a string`). */
function keyOrTypeMessage(entries: v.ObjectEntries, typeMessage: string) {
  return (issue: v.BaseIssue<unknown>): string => {
    const item = issue.path?.[0];
    if (item?.origin !== 'key') return typeMessage;
    const message = (entries[String(item.key)] as { message?: unknown } | undefined)?.message;
    if (typeof message === 'function') return String((message as (i: typeof issue) => unknown)(issue));
    return typeof message === 'string' ? message : 'is missing';
  };
}

const objectOnly = (message: string) => v.custom<Obj>(isObj, message);

/** An object with these fields; other fields are dropped. */
export function obj<const E extends v.ObjectEntries>(entries: E, message = 'must be an object') {
  return v.pipe(objectOnly(message), v.object(entries, keyOrTypeMessage(entries, message)));
}

/** An object with these fields checked and any other field kept (Triton config we do not model). */
export function openObj<const E extends v.ObjectEntries>(entries: E) {
  return v.pipe(
    objectOnly('must be an object'),
    v.looseObject(entries, keyOrTypeMessage(entries, 'must be an object')),
  );
}

// Plain checks are single custom schemas, not pipes: reading a large graph runs them thousands of times.
/** Any string. */
export const str = v.string('must be a string');
/** A string with at least one character. */
export const nonEmptyStr = v.custom<string>(
  (x) => typeof x === 'string' && x !== '',
  (issue) => (typeof issue.input === 'string' ? 'must not be empty' : 'must be a string'),
);
/** A finite number. */
export const num = v.custom<number>((x) => typeof x === 'number' && Number.isFinite(x), 'must be a finite number');
/** `true` or `false`. */
export const bool = v.boolean('must be true or false');

/** An integer, at least `min` when given. */
export function int(min = -Infinity) {
  return v.custom<number>(
    (x) => Number.isInteger(x) && (x as number) >= min,
    (issue) => (Number.isInteger(issue.input) ? `must be ≥ ${min}` : 'must be an integer'),
  );
}

/** One of a fixed list of strings; the message lists them and shows what was sent. */
export function oneOf<const T extends string>(options: readonly T[]) {
  return v.picklist(options, (issue) => `must be one of ${options.join(', ')} (got ${shown(issue.input)})`);
}

/** An array whose every item passes `item`. */
export const arr = <T extends v.GenericSchema>(item: T) => v.array(item, 'must be an array');

/** A dims array: each dim `-1` or a positive integer. */
export const dims = arr(
  v.pipe(
    int(),
    v.check((d) => d === -1 || d >= 1, 'must be -1 or a positive integer'),
  ),
);

/** A tensor shape: non-negative integer dims, with the messages for a bad dim and for a non-array. */
export const tensorShape = (dimMessage: string, arrayMessage: string) =>
  v.array(
    v.custom<number>((x) => Number.isInteger(x) && (x as number) >= 0, dimMessage),
    arrayMessage,
  );

/** A scalar param value: number, string or boolean. */
export const scalar = v.custom<number | string | boolean>(
  (x) => typeof x === 'string' || typeof x === 'boolean' || (typeof x === 'number' && Number.isFinite(x)),
  'must be a finite number',
);

/**
 * An object of user-named entries, each checked by `item`. Every key is kept as plain data, `__proto__`
 * and `constructor` included (valibot's own `record` drops those silently; a name must reach the checks
 * that report it, and it must never become a prototype).
 */
export function dataRecord<T extends v.GenericSchema>(item: T, message = 'must be an object') {
  return v.pipe(
    objectOnly(message),
    v.rawTransform(({ dataset, config, addIssue, NEVER }) => {
      const entries: [string, v.InferOutput<T>][] = [];
      for (const [key, value] of Object.entries(dataset.value)) {
        const r = v.safeParse(item, value, { abortEarly: config.abortEarly });
        if (!r.success) {
          const at: v.IssuePathItem = { type: 'object', origin: 'value', input: dataset.value, key, value };
          for (const issue of r.issues) addIssue({ message: issue.message, path: [at, ...(issue.path ?? [])] });
          return NEVER;
        }
        entries.push([key, r.output]);
      }
      // fromEntries defines each key as an own data property: `__proto__` stays a key, not a prototype.
      return Object.fromEntries(entries) as Record<string, v.InferOutput<T>>;
    }),
  );
}

/**
 * An object read by the schema its `key` field names (`kind: 'router'` → `schemas.router`): one lookup,
 * where valibot's `variant` runs each option's discriminator schema in turn, for every node of a large
 * graph. An unknown value names the ones there are.
 */
export function byKey<const S extends Record<string, v.GenericSchema>>(
  key: string,
  schemas: S,
): v.GenericSchema<unknown, v.InferOutput<S[keyof S]>> {
  const names = Object.keys(schemas).join(', ');
  return v.pipe(
    objectOnly('must be an object'),
    v.rawTransform<Obj, v.InferOutput<S[keyof S]>>(({ dataset, config, addIssue, NEVER }) => {
      const input = dataset.value;
      const tag = input[key];
      const schema = typeof tag === 'string' && Object.hasOwn(schemas, tag) ? schemas[tag] : undefined;
      if (!schema) {
        const path: [v.IssuePathItem] = [{ type: 'object', origin: 'value', input, key, value: tag }];
        addIssue({ message: `must be one of ${names} (got ${shown(tag)})`, path });
        return NEVER;
      }
      const r = v.safeParse(schema, input, { abortEarly: config.abortEarly });
      if (r.success) return r.output as v.InferOutput<S[keyof S]>;
      for (const issue of r.issues) addIssue({ message: issue.message, ...(issue.path ? { path: issue.path } : {}) });
      return NEVER;
    }),
  );
}
