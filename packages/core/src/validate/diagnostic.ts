/** A problem Triton would reject (or a warning), as data. */
export interface Diagnostic {
  /** Stable code, e.g. `cycle`, `dtype-mismatch`, `unused-tensor`. */
  code: string;
  severity: 'error' | 'warning' | 'info';
  message: string;
  nodeId?: string;
  edgeId?: string;
  port?: string;
  /** What to do about it, e.g. "set max_batch_size: 0 on vad". */
  fix?: string;
  /** For expression errors: 1-based column in the expression. */
  column?: number;
}

export const hasErrors = (ds: readonly Diagnostic[]): boolean => ds.some((d) => d.severity === 'error');
