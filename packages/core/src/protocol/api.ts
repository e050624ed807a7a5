// The studio's HTTP API under `/api`: what each route takes and sends. The server's handlers and the web
// client both compile against these types (the WebSocket protocol is in messages.ts).
import type { Catalogue } from '../catalogue/types.ts';
import type { CompileResult, RepoFile } from '../compile/types.ts';
import type { GraphDoc } from '../graph/types.ts';
import type { Diagnostic } from '../validate/diagnostic.ts';
import type * as v from 'valibot';
import type { apiCompileRequestSchema, apiGraphRequestSchema } from './apiRequests.ts';

/** One model as the engine holds it: loading, ready (with its instance count), or unavailable and why. */
export interface ApiEngineModel {
  state: 'loading' | 'ready' | 'unavailable';
  instances: number;
  error?: string;
  coldStartMs?: number;
  firstRunMs?: number;
}

/** The engine's part of `GET /api/health`. */
export interface ApiEngineHealth {
  /** `available`: the execution providers that can run; `inUse`: the one each ready model runs on. */
  executionProviders: { available: string[]; inUse: Record<string, string> };
  notices: string[];
  /** Keyed by model name (and version where more than one is loaded). */
  models: Record<string, ApiEngineModel>;
  activeRuns: number;
  activeSequences: number;
}

/** `GET /api/health`. `models`, `graphs` and `problems` are counts. */
export interface ApiHealth {
  ok: true;
  version: string;
  /** The WebSocket protocol version (`PROTOCOL_VERSION`). */
  protocol: number;
  /** The repository directory on the server. */
  repository: string;
  models: number;
  graphs: number;
  problems: number;
  runsInFlight: number;
  engine: ApiEngineHealth;
}

/** `GET /api/catalogue`: the models, plus the repository directory and its load and engine problems. */
export interface ApiCatalogue extends Catalogue {
  dir: string;
  problems: Diagnostic[];
}

/** One saved graph in `GET /api/graphs`: its size and how many error diagnostics it has. */
export interface ApiGraphListing {
  name: string;
  description?: string;
  nodes: number;
  edges: number;
  errors: number;
}

/** `GET /api/graphs`, sorted by name. */
export interface ApiGraphList {
  graphs: ApiGraphListing[];
}

/** `GET /api/graphs/:name`: the saved document. */
export type ApiGraph = GraphDoc;

/** `PUT /api/graphs/:name` takes the document itself or `{graph}`; its name must be `:name`. */
export type ApiSaveGraphRequest = GraphDoc | { graph: GraphDoc };

/** `PUT /api/graphs/:name`: saved (as a draft when it has errors); `configWritten` when its config.pbtxt was written too. */
export interface ApiSaveGraphResponse {
  saved: string;
  configWritten: boolean;
  diagnostics: Diagnostic[];
}

/** The body of `POST /api/validate` and `/api/export`: a saved graph's name or a whole document. */
export type ApiGraphRequest = v.InferOutput<typeof apiGraphRequestSchema>;

/** `POST /api/validate`: `ok` when no diagnostic is an error. */
export interface ApiValidateResponse {
  ok: boolean;
  diagnostics: Diagnostic[];
}

/** `POST /api/compile`: with `nodeId`, only that node's files (`ApiCompileNodeResponse`). */
export type ApiCompileRequest = v.InferOutput<typeof apiCompileRequestSchema>;

/** `POST /api/compile` without `nodeId`: the whole repository's files. */
export type ApiCompileResponse = CompileResult;

/** `POST /api/compile` with `nodeId`: the files that node generates. */
export interface ApiCompileNodeResponse {
  nodeId: string;
  files: RepoFile[];
}

/** `POST /api/import`: the repository now open (names sorted). */
export interface ApiImportResponse {
  dir: string;
  models: string[];
  graphs: string[];
  problems: Diagnostic[];
}

/** `GET /api/models/:name/source`: a Python model's model.py, read-only; `path` is repository-relative. */
export interface ApiModelSource {
  model: string;
  path: string;
  bytes: number;
  text: string;
}

/** Every `/api` error: a stable `code`, a message, and optional details (diagnostics, the limit that was hit…). */
export interface ApiErrorBody {
  error: { code: string; message: string; details?: unknown };
}
