// The bodies the `/api` routes take, as the schema layer reads them; api.ts's request types are theirs.
import * as v from 'valibot';
import { obj } from '../schema/fields.ts';
import { issueMessage } from '../schema/issues.ts';
import { graphRefSchema } from './messageSchema.ts';

const GRAPH_BODY = 'must be a JSON object {"graph": <name or graph document>}';

/** `POST /api/validate` and `/api/export`: a saved graph's name or a whole document. */
export const apiGraphRequestSchema = obj({ graph: graphRefSchema }, GRAPH_BODY);

/** `POST /api/compile`: with `nodeId`, only that node's files. */
export const apiCompileRequestSchema = obj(
  { graph: graphRefSchema, nodeId: v.optional(v.string('must be a string')) },
  GRAPH_BODY,
);

const DIR = 'must be a repository directory: a non-empty string without NUL characters';
/** `POST /api/import`: a repository directory on the server to open. */
export const apiImportRequestSchema = obj(
  {
    dir: v.pipe(
      v.string(DIR),
      v.minLength(1, DIR),
      v.check((d) => !d.includes('\0'), DIR),
    ),
  },
  'must be a JSON object {"dir": "<repository directory>"}',
);

/**
 * Reads an `/api` request body with its schema; the error names the field (`graph must be …`), or
 * `body` when the body itself is wrong.
 * @example readApiBody(apiImportRequestSchema, req.body) // { ok: true, value: { dir: '/models' } }
 */
export function readApiBody<T>(
  schema: v.GenericSchema<unknown, T>,
  body: unknown,
): { ok: true; value: T } | { ok: false; error: string } {
  const r = v.safeParse(schema, body, { abortEarly: true });
  return r.success ? { ok: true, value: r.output } : { ok: false, error: issueMessage(r.issues[0], 'body') };
}
