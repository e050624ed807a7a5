import type {
  Catalogue,
  GraphDoc,
  GraphEdge,
  GraphNode,
  NodeKind,
  NodeTiming,
  ServerMessage,
  TensorSummary,
  WireTensor,
  XY,
} from '@ensemble-studio/core';
import type { EdgeChange, NodeChange } from '@xyflow/react';

/** A connection the user is making: output port → input port. */
export interface PortConnection {
  source: string;
  sourcePort: string;
  target: string;
  targetPort: string;
}

/** What the palette hands to `addNode`. */
export interface NodeTemplate {
  kind: NodeKind;
  model?: string;
  op?: string;
}

/** Copied nodes and the edges among them. */
export interface Fragment {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

export interface Selection {
  nodes: string[];
  edges: string[];
}
export interface Size {
  width: number;
  height: number;
}
export type RightPanel = 'inspect' | 'preview' | 'run';
export type Theme = 'dark' | 'light';
export interface Toast {
  id: number;
  level: 'info' | 'error';
  text: string;
}

/** The document: the only state that is saved, compiled, validated and undone. */
export interface DocState {
  graph: GraphDoc;
  saved: GraphDoc | null;
}

export interface HistoryState {
  past: GraphDoc[];
  future: GraphDoc[];
  mark: GraphDoc | null;
}

/** Editor session state: never saved, never undone. */
export interface UiState {
  selection: Selection;
  measured: Record<string, Size>;
  dragging: boolean;
  toast: Toast | null;
  panel: RightPanel;
  help: boolean;
  theme: Theme;
  /** A request to centre the viewport on a node; `seq` makes repeated requests distinct. */
  focus: { nodeId: string; seq: number } | null;
  clipboard: Fragment | null;
  /** Bumped whenever a graph is loaded (the canvas fits the view). */
  loaded: number;
  /** A request to show a Python node's model.py in the inspector, at a line (a traceback's); `seq` makes repeats distinct. */
  source: { nodeId: string; line: number | null; seq: number } | null;
}

export type NodeRunStatus = 'queued' | 'running' | 'finished' | 'skipped' | 'failed' | 'cancelled';

export interface NodeRun {
  status: NodeRunStatus;
  timing?: NodeTiming;
  instance?: string;
  batchSize?: number;
  /** Why it was skipped / how it failed. */
  reason?: string;
  /** The Python traceback of a failed Python model (file:line frames). */
  traceback?: string;
  outputs?: Record<string, TensorSummary>;
}

export type RunStatus = 'idle' | 'starting' | 'running' | 'completed' | 'exited' | 'failed' | 'cancelled';

/** One partial result of a run: a node's outputs as they arrived (one per chunk of a stream). */
export interface RunPartial {
  nodeId: string;
  index: number;
  chunk?: number;
  outputs: Record<string, TensorSummary>;
}

/** A line a model wrote while the run used it (`print`, stderr, `pb_utils.Logger`). */
export interface RunLogLine {
  nodeId?: string;
  model: string;
  instance: string;
  level: 'info' | 'warn' | 'error' | 'verbose';
  message: string;
}

/** A finished run kept for the timeline comparison. */
export interface RunRecord {
  runId: string;
  graph: string;
  status: RunStatus;
  totalMs: number;
  timings: NodeTiming[];
}

export interface StreamState {
  streamId: string;
  graph: string;
  /** Where the audio comes from, e.g. "speech.wav" or "microphone". */
  source?: string;
  sequenceId?: number | string;
  instance?: string;
  model?: string;
  sent: number;
  /** Chunks the server has run (`sequence.chunk`). */
  acknowledged: number;
  /** One value per acknowledged chunk (e.g. speech probability). */
  values: number[];
  ended?: string;
}

/** Run state: written only by run/runSocket.ts (through `receive`), never undone. */
export interface RunState {
  runId: string | null;
  requestId: string | null;
  status: RunStatus;
  nodes: Record<string, NodeRun>;
  partials: RunPartial[];
  outputs: Record<string, WireTensor>;
  message: string | null;
  totalMs: number | null;
  startedAt: number | null;
  records: RunRecord[];
  streams: Record<string, StreamState>;
  /** runId → streamId for per-chunk runs. */
  runStreams: Record<string, string>;
  /** The models' log lines of the current run (and its stream's chunks), the last `KEPT_LOG_LINES`. */
  logs: RunLogLine[];
  connected: boolean;
}

export interface DocActions {
  loadGraph(graph: GraphDoc, saved?: boolean): void;
  markSaved(graph: GraphDoc): void;
  addNode(template: NodeTemplate, position: XY): string;
  connect(c: PortConnection): void;
  removeSelection(): void;
  removeEdges(ids: string[]): void;
  setParams(id: string, params: Record<string, unknown>): void;
  setLabel(id: string, label: string): void;
  renameGraph(name: string): void;
  setMaxBatchSize(n: number): void;
  moveNodes(positions: Record<string, XY>): void;
  paste(): void;
  duplicateSelection(): void;
  undo(): void;
  redo(): void;
}

export interface UiActions {
  select(selection: Selection): void;
  applyNodeChanges(changes: NodeChange[]): void;
  applyEdgeChanges(changes: EdgeChange[]): void;
  copySelection(): void;
  notify(text: string, level?: Toast['level']): void;
  dismissToast(): void;
  setPanel(panel: RightPanel): void;
  toggleHelp(open?: boolean): void;
  setTheme(theme: Theme): void;
  focusNode(nodeId: string): void;
  /** Selects a Python node and opens its model.py in the inspector, at `line` when given. */
  showSource(nodeId: string, line?: number): void;
}

export interface RunActions {
  /** Folds one server message into run state; called only by runSocket. */
  receive(msg: ServerMessage): void;
  beginRun(requestId: string): void;
  beginStream(streamId: string, graph: string, source?: string): void;
  /** The user cancelled one stream: it says so at once. */
  streamCancelled(streamId: string): void;
  chunkSent(streamId: string): void;
  setConnected(connected: boolean): void;
  /** The user cancelled: unfinished nodes and open streams say so at once. */
  markCancelled(): void;
  clearRun(): void;
}

/** Zustand's `set` for the editor store, as the slices receive it. */
export type SetEditorState = (partial: Partial<EditorState> | ((s: EditorState) => Partial<EditorState>)) => void;
/** Zustand's `get` for the editor store. */
export type GetEditorState = () => EditorState;

export interface EditorState {
  catalogue: Catalogue;
  doc: DocState;
  history: HistoryState;
  ui: UiState;
  run: RunState;
  actions: DocActions & UiActions & RunActions;
}
