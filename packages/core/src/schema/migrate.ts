import { GRAPH_VERSION, type GraphDoc } from '../graph/types.ts';
import { isObj, type Obj } from './fields.ts';
import { readGraph } from './graphSchema.ts';

/** One step: brings a document from version `key` to `key + 1`. Input is untrusted (checked after). */
export interface Migration {
  description: string;
  up(doc: Obj): Obj;
}

/** The migrations, keyed by the version they start from. */
export const MIGRATIONS: Readonly<Record<number, Migration>> = {
  0: {
    description:
      'pre-release documents: edges named their ports sourceHandle/targetHandle (React Flow) and maxBatchSize was optional',
    up(doc) {
      const edges = Array.isArray(doc.edges)
        ? doc.edges.map((e: unknown) => {
            if (!isObj(e)) return e;
            const { sourceHandle, targetHandle, ...rest } = e;
            return {
              ...rest,
              sourcePort: rest.sourcePort ?? sourceHandle,
              targetPort: rest.targetPort ?? targetHandle,
            };
          })
        : doc.edges;
      return { ...doc, version: 1, maxBatchSize: doc.maxBatchSize ?? 0, edges };
    },
  },
};

export type MigrateResult = { ok: true; graph: GraphDoc; from: number } | { ok: false; error: string };

/**
 * Brings an untrusted JSON document up to GRAPH_VERSION (one numbered step at a time) and checks
 * its structure. A document without `version` is a pre-release one (version 0).
 * @example const r = migrate(JSON.parse(text)); if (!r.ok) console.error(r.error) // "nodes[3].params.count must be an integer"
 */
export function migrate(doc: unknown): MigrateResult {
  if (!isObj(doc)) return { ok: false, error: 'the graph document must be a JSON object' };
  const from = doc.version ?? 0;
  if (typeof from !== 'number' || !Number.isInteger(from) || from < 0)
    return { ok: false, error: 'version must be a non-negative integer' };
  if (from > GRAPH_VERSION) {
    return {
      ok: false,
      error: `graph version ${from} is newer than this Ensemble Studio supports (${GRAPH_VERSION}); update Ensemble Studio to open it`,
    };
  }
  let current: Obj = doc;
  for (let v = from; v < GRAPH_VERSION; v++) {
    const step = MIGRATIONS[v];
    if (!step) return { ok: false, error: `no migration from graph version ${v}` };
    current = step.up(current);
  }
  const read = readGraph(current);
  return read.ok ? { ...read, from } : read;
}
