import { useState, type ReactNode } from 'react';
import type { ParamSpec } from '@ensemble-studio/core';

interface TextProps {
  label: string;
  value: string;
  onCommit(v: string): void;
  error?: string | null;
  mono?: boolean;
  placeholder?: string;
  name?: string;
  hint?: string;
  children?: ReactNode;
}

/**
 * Local text for a field that starts over from `value` whenever the committed value changes (set during render,
 * as React advises for state that follows a prop, so no frame shows the old text).
 */
function useDraft<T>(value: T, text: (v: T) => string): [string, (draft: string) => void] {
  const [draft, setDraft] = useState(() => text(value));
  const [from, setFrom] = useState(value);
  if (!Object.is(from, value)) {
    setFrom(value);
    setDraft(text(value));
  }
  return [draft, setDraft];
}

/** A param's `help`, under its field. */
const Hint = ({ text }: { text?: string }) => (text ? <span className="field-hint">{text}</span> : null);

/** A text field with local state that commits on blur or Enter (one undo step per edit). */
export function TextField({ label, value, onCommit, error, mono, placeholder, name, hint, children }: TextProps) {
  const [draft, setDraft] = useDraft(value, String);
  const commit = () => {
    if (draft !== value) onCommit(draft);
  };
  return (
    <label className={`field${error ? ' invalid' : ''}`}>
      <span className="field-label">{label}</span>
      <input
        className={`nodrag${mono ? ' mono' : ''}`}
        name={name ?? label}
        value={draft}
        placeholder={placeholder}
        spellCheck={false}
        onChange={(e) => setDraft(e.target.value)}
        onBlur={commit}
        onKeyDown={(e) => {
          if (e.key === 'Enter') commit();
          if (e.key === 'Escape') setDraft(value);
        }}
      />
      {children}
      <Hint text={hint} />
      {error && <span className="field-error">{error}</span>}
    </label>
  );
}

/** A number field (blank = undefined); commits on blur or Enter. */
export function NumberField({
  label,
  value,
  onCommit,
  min,
  max,
  step,
  error,
  name,
  hint,
}: {
  label: string;
  value: number | undefined;
  onCommit(v: number | undefined): void;
  min?: number;
  max?: number;
  step?: number;
  error?: string | null;
  name?: string;
  hint?: string;
}) {
  const [draft, setDraft] = useDraft(value, (v) => (v === undefined ? '' : String(v)));
  const commit = () => {
    const v = draft.trim() === '' ? undefined : Number(draft);
    if (v !== value && (v === undefined || Number.isFinite(v))) onCommit(v);
  };
  return (
    <label className={`field${error ? ' invalid' : ''}`}>
      <span className="field-label">{label}</span>
      <input
        className="nodrag"
        type="number"
        name={name ?? label}
        value={draft}
        min={min}
        max={max}
        step={step ?? 'any'}
        onChange={(e) => setDraft(e.target.value)}
        onBlur={commit}
        onKeyDown={(e) => e.key === 'Enter' && commit()}
      />
      <Hint text={hint} />
      {error && <span className="field-error">{error}</span>}
    </label>
  );
}

export function SelectField({
  label,
  value,
  options,
  onCommit,
  name,
  hint,
}: {
  label: string;
  value: string;
  options: readonly string[];
  onCommit(v: string): void;
  name?: string;
  hint?: string;
}) {
  return (
    <label className="field">
      <span className="field-label">{label}</span>
      <select className="nodrag" name={name ?? label} value={value} onChange={(e) => onCommit(e.target.value)}>
        {options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
      <Hint text={hint} />
    </label>
  );
}

export function CheckField({
  label,
  value,
  onCommit,
  name,
  hint,
}: {
  label: string;
  value: boolean;
  onCommit(v: boolean): void;
  name?: string;
  hint?: string;
}) {
  return (
    <label className="field check">
      <input type="checkbox" name={name ?? label} checked={value} onChange={(e) => onCommit(e.target.checked)} />
      <span className="field-label">{label}</span>
      <Hint text={hint} />
    </label>
  );
}

/** One param rendered from its ParamSpec (KIND_DEFS / OP_DEFS), its `help` under it. */
export function ParamField({
  spec,
  value,
  onCommit,
  error,
}: {
  spec: ParamSpec;
  value: unknown;
  onCommit(v: unknown): void;
  error?: string | null;
}) {
  const name = `param-${spec.name}`;
  const hint = spec.help;
  switch (spec.type) {
    case 'enum':
      return (
        <SelectField
          label={spec.label}
          name={name}
          value={String(value ?? spec.default)}
          options={spec.options}
          onCommit={onCommit}
          hint={hint}
        />
      );
    case 'boolean':
      return (
        <CheckField
          label={spec.label}
          name={name}
          value={Boolean(value ?? spec.default)}
          onCommit={onCommit}
          hint={hint}
        />
      );
    case 'string':
      return (
        <TextField
          label={spec.label}
          name={name}
          value={String(value ?? spec.default)}
          onCommit={onCommit}
          error={error}
          hint={hint}
        />
      );
    default:
      return (
        <NumberField
          label={spec.label}
          name={name}
          value={typeof value === 'number' ? value : spec.default}
          min={spec.min}
          max={spec.max}
          step={spec.type === 'integer' ? 1 : undefined}
          onCommit={(v) => onCommit(v ?? spec.default)}
          error={error}
          hint={hint}
        />
      );
  }
}
