import type { GraphDoc } from '../graph/types.ts';

/** How the graph compiles: a plain ensemble, an ensemble with gates/error gates, or one BLS model. */
export type ExportStrategy = 'ensemble' | 'gate' | 'error' | 'bls';

/** One model of the exported repository, for the README's table. */
export interface ReadmeModel {
  name: string;
  role: string;
}

export interface ReadmeInput {
  graph: GraphDoc;
  strategy: ExportStrategy;
  /** The entry point is decoupled (a gate or a decoupled model is a step). */
  decoupled: boolean;
  /** A sequence-batched (stateful) model is inside. */
  stateful: boolean;
  models: ReadmeModel[];
  /** The oldest Triton release the export runs on (see `minimumTriton`). */
  minTriton: string;
  tritonVersion?: string;
}

/** Markdown-inline-safe text: no backticks, pipes or line breaks. */
function md(s: string): string {
  return s.replace(/[`|\r\n]/g, ' ');
}

/** The Triton release the export needs, e.g. `23.07` for a decoupled gate. */
export function minimumTriton(strategy: ExportStrategy, decoupled: boolean): string {
  if (strategy === 'gate') return '23.07';
  if (decoupled) return '23.07';
  return '22.12';
}

const STRATEGY_TEXT: Record<ExportStrategy, string> = {
  ensemble: 'A plain Triton ensemble: every node is an ensemble step (routers and ops are generated Python models).',
  gate:
    'An ensemble with a **decoupled Python gate** per condition. When the condition holds, the gate sends no response ' +
    '(only the FINAL flag), so the steps after it never run and the request ends with **zero responses**. Triton then ' +
    'treats the whole ensemble as decoupled.',
  error:
    "An ensemble with a Python gate per condition that **fails the request** with the condition's message when it holds " +
    '(clients receive an error response `in ensemble ..., <message>`); otherwise the tensors pass through.',
  bls:
    'The whole graph is **one Python BLS model** that calls the composing models with `pb_utils.InferenceRequest(...).exec()` ' +
    'in topological order, runs ops inline and evaluates the conditions in Python. When a condition holds, it returns the ' +
    'declared default outputs (empty tensors where none are declared).',
};

/**
 * The exported repository's README.md: what each model is, the strategy, the Triton version it
 * needs and how clients call the entry point.
 * @example exportReadme({ graph, strategy: 'gate', decoupled: true, stateful: false, models: [], minTriton: '23.07' })
 */
export function exportReadme(r: ReadmeInput): string {
  const name = md(r.graph.name);
  const lines = [
    `# ${name}`,
    '',
    'A Triton model repository exported by Ensemble Studio. Start Triton with `tritonserver --model-repository=<this directory>`.',
    '',
    '## Models',
    '',
    '| model | what it is |',
    '|---|---|',
    ...r.models.map((m) => `| \`${md(m.name)}\` | ${md(m.role)} |`),
    '',
    '## Strategy',
    '',
    STRATEGY_TEXT[r.strategy],
    '',
    '## Triton version',
    '',
    ...versionLines(r),
    '',
    '## Calling it',
    '',
    ...callingLines(r, name),
  ];
  return `${lines.join('\n')}\n`;
}

function versionLines(r: ReadmeInput): string[] {
  const min = r.minTriton;
  const why =
    min !== '22.12'
      ? 'decoupled steps (and an ensemble that finishes with zero responses, core PR #229) need r23.07'
      : 'any recent release works';
  const lines = [`Needs Triton **${min}** or newer: ${why}.`];
  if (r.tritonVersion) lines.push('', `Exported for Triton ${md(r.tritonVersion)}.`);
  return lines;
}

function callingLines(r: ReadmeInput, name: string): string[] {
  const lines: string[] = [];
  if (r.decoupled) {
    lines.push(
      `\`${name}\` is **decoupled**: HTTP \`/v2/models/${name}/infer\` and unary gRPC \`ModelInfer\` refuse it.`,
      '- gRPC streaming: `ModelStreamInfer` (e.g. `tritonclient.grpc` `start_stream` + `async_stream_infer`). ' +
        'Send the request parameter `triton_enable_empty_final_response=true` to be told when a request ends with no response.',
      `- HTTP streaming: \`POST /v2/models/${name}/generate_stream\` (one \`data: {...}\` event per response).`,
    );
    if (r.strategy === 'gate')
      lines.push('- An early exit ends the request with **zero responses** (the final flag only).');
  } else {
    lines.push(
      `- HTTP: \`POST /v2/models/${name}/infer\` with \`{"inputs": [{"name", "shape", "datatype", "data"}]}\`.`,
      '- gRPC: `ModelInfer`.',
    );
    if (r.strategy === 'error')
      lines.push("- An early exit comes back as an error response carrying the condition's message.");
    if (r.strategy === 'bls')
      lines.push('- An early exit comes back as a normal response holding the default outputs.');
  }
  if (r.stateful) {
    lines.push(
      '',
      'A stateful (sequence-batched) model is inside: every request must carry the sequence parameters ' +
        '`"parameters": {"sequence_id": <non-zero id>, "sequence_start": true|false, "sequence_end": true|false}` ' +
        '(gRPC: `sequence_id`, `sequence_start`, `sequence_end`), with `sequence_start: true` on the first request of a stream.',
    );
  }
  return lines;
}
