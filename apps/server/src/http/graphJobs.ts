import type {
  ApiCompileNodeResponse,
  ApiCompileResponse,
  Catalogue,
  Diagnostic,
  GraphDoc,
} from '@ensemble-studio/core';
import { compileGraph, compileNodePreview } from '@ensemble-studio/core';
import { zipRepoFiles } from '../repo/repoFiles.ts';

// Compiling a graph and zipping its repository, done in the body worker: zipping the examples' `ocr` graph (its
// models' 15 MB of files, deflated) held the main thread 650–810 ms, and compiling a graph at the node and edge
// limits 120–240 ms, while no other client was answered.

/** A graph to compile, with the catalogue it compiles against. */
export type GraphJob =
  | { kind: 'compile'; graph: GraphDoc; catalogue: Catalogue; nodeId?: string }
  | { kind: 'export'; graph: GraphDoc; catalogue: Catalogue; sourceRepoDir: string };

/** What a graph job gives back: the compile response as JSON text, or the zip (or why the graph does not compile). */
export type GraphJobResult =
  { kind: 'json'; text: string } | { kind: 'zip'; zip: Uint8Array } | { kind: 'invalid'; diagnostics: Diagnostic[] };

/**
 * Runs one graph job (in the body worker).
 * @example runGraphJob({ kind: 'compile', graph, catalogue }) // { kind: 'json', text: '{"ok":true,…}' }
 */
export function runGraphJob(job: GraphJob): GraphJobResult {
  if (job.kind === 'compile') {
    const { graph, catalogue, nodeId } = job;
    const body: ApiCompileResponse | ApiCompileNodeResponse =
      nodeId === undefined
        ? compileGraph(graph, catalogue)
        : { nodeId, files: compileNodePreview(graph, catalogue, nodeId) };
    return { kind: 'json', text: JSON.stringify(body) };
  }
  const compiled = compileGraph(job.graph, job.catalogue);
  if (!compiled.ok) return { kind: 'invalid', diagnostics: compiled.diagnostics };
  return { kind: 'zip', zip: zipRepoFiles(compiled.files, job.sourceRepoDir) };
}
