import type { GraphDoc } from '@ensemble-studio/core';
import type { HistoryState } from './types.ts';

/** Undo depth; older snapshots are dropped. */
export const HISTORY_LIMIT = 100;

export type HistoryMode = 'record' | 'ignore';

export const emptyHistory = (): HistoryState => ({ past: [], future: [], mark: null });

/**
 * The history after replacing `prev` with `next`. `record` pushes `prev` and clears redo;
 * `ignore` leaves history as it is (a drag in progress). Unchanged docs record nothing.
 * @example record(h, doc, addNode(doc, n), 'record').past.at(-1) === doc
 */
export function record(h: HistoryState, prev: GraphDoc, next: GraphDoc, mode: HistoryMode): HistoryState {
  if (mode === 'ignore' || prev === next) return h;
  return { past: [...h.past, prev].slice(-HISTORY_LIMIT), future: [], mark: h.mark };
}

/** Starts a squashed batch (a drag): remembers the doc before it. */
export function mark(h: HistoryState, doc: GraphDoc): HistoryState {
  return h.mark ? h : { ...h, mark: doc };
}

/** Ends a squashed batch: the whole batch becomes one undo step. */
export function squash(h: HistoryState, doc: GraphDoc): HistoryState {
  if (!h.mark) return h;
  const before = h.mark;
  const cleared = { ...h, mark: null };
  return before === doc ? cleared : record(cleared, before, doc, 'record');
}

export function undo(h: HistoryState, doc: GraphDoc): { history: HistoryState; doc: GraphDoc } | null {
  const prev = h.past[h.past.length - 1];
  if (!prev) return null;
  return { doc: prev, history: { past: h.past.slice(0, -1), future: [doc, ...h.future], mark: null } };
}

export function redo(h: HistoryState, doc: GraphDoc): { history: HistoryState; doc: GraphDoc } | null {
  const next = h.future[0];
  if (!next) return null;
  return {
    doc: next,
    history: { past: [...h.past, doc].slice(-HISTORY_LIMIT), future: h.future.slice(1), mark: null },
  };
}
