import type { ConditionNode, Diagnostic } from '@ensemble-studio/core';
import { KIND_DEFS } from '@ensemble-studio/core';
import { ParamField, TextField } from './Field.tsx';

interface Props {
  node: ConditionNode;
  diagnostics: Diagnostic[];
  outputs: string[];
  onParams(p: Record<string, unknown>): void;
}

/** The expression with a caret under the failing column, the strategy, ports, message and defaults. */
export function ConditionForm({ node, diagnostics, outputs, onParams }: Props) {
  const exprError = diagnostics.find((d) => d.code === 'invalid-expression');
  const spec = (name: string) => KIND_DEFS.condition.params.find((p) => p.name === name)!;
  const p = node.params;
  return (
    <>
      <TextField
        label="Exit when"
        name="expression"
        mono
        value={p.expression}
        onCommit={(v) => onParams({ expression: v })}
        error={exprError ? `column ${exprError.column ?? '?'}: ${exprError.message.replace(/^'[^']*': /, '')}` : null}
      >
        {exprError?.column !== undefined && (
          <pre className="caret mono" aria-hidden>
            {p.expression}
            {'\n'}
            {' '.repeat(Math.max(0, exprError.column - 1))}^
          </pre>
        )}
      </TextField>
      <p className="muted small">
        e.g. <code>len(boxes) == 0</code>, <code>max(scores) &lt; 0.5</code>; functions len, size, max, min, sum, mean,
        any, all; <code>x.shape[i]</code>.
      </p>
      <ParamField spec={spec('strategy')} value={p.strategy} onCommit={(v) => onParams({ strategy: v })} />
      <p className="muted small">{strategyHelp(p.strategy)}</p>
      <TextField
        label="Ports (pass through)"
        name="ports"
        mono
        value={p.ports.join(', ')}
        onCommit={(v) =>
          onParams({
            ports: v
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean),
          })
        }
      />
      {p.strategy === 'error' && (
        <ParamField spec={spec('message')} value={p.message} onCommit={(v) => onParams({ message: v })} />
      )}
      {p.strategy === 'bls' && <DefaultsForm node={node} outputs={outputs} onParams={onParams} />}
    </>
  );
}

function strategyHelp(s: string): string {
  if (s === 'gate')
    return 'gate: a decoupled Python gate; an exit returns zero responses. Clients stream (gRPC / generate_stream). Triton ≥ 23.07.';
  if (s === 'bls')
    return 'bls: the graph compiles to one Python BLS model; an exit returns the default outputs below. Works with unary /infer.';
  return 'error: the request fails with the message below.';
}

function DefaultsForm({
  node,
  outputs,
  onParams,
}: {
  node: ConditionNode;
  outputs: string[];
  onParams(p: Record<string, unknown>): void;
}) {
  const d = node.params.defaults;
  return (
    <div className="defaults">
      <h4>Default outputs on exit</h4>
      {outputs.length === 0 && <p className="muted small">The graph has no outputs yet.</p>}
      {outputs.map((o) => (
        <TextField
          key={o}
          label={o}
          name={`default-${o}`}
          mono
          placeholder="empty"
          value={d[o] ? JSON.stringify(d[o]!.data) : ''}
          onCommit={(v) => {
            const next = { ...d };
            try {
              const data = v.trim() ? (JSON.parse(v) as (number | string | boolean)[]) : null;
              if (data && Array.isArray(data)) next[o] = { shape: [data.length], data };
              else delete next[o];
              onParams({ defaults: next });
            } catch {
              /* keep the old value: not JSON */
            }
          }}
        />
      ))}
    </div>
  );
}
