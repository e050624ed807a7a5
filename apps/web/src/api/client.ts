import type { Catalogue, CompileResult, Diagnostic, GraphDoc, RepoFile } from '@ensemble-studio/core';

export interface Health {
  version: string;
  engine: Record<string, unknown>;
  executionProviders: { available: string[]; inUse: Record<string, string> };
  notices: string[];
}
export interface GraphListing { name: string; description?: string }

/** An error the server reported (`{ error: { code, message } }`) or a network failure. */
export class ApiError extends Error {
  constructor(readonly code: string, message: string, readonly status = 0) {
    super(message);
  }
}

async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    throw new ApiError('network', `cannot reach the studio server (${(e as Error).message})`);
  }
  if (!res.ok) {
    const payload = (await res.json().catch(() => null)) as { error?: { code: string; message: string } } | null;
    throw new ApiError(payload?.error?.code ?? 'http', payload?.error?.message ?? `${method} ${path}: HTTP ${res.status}`, res.status);
  }
  return (await res.json()) as T;
}

/** The studio server's HTTP API (same origin). */
export const api = {
  health: () => request<Health>('GET', '/api/health'),
  catalogue: () => request<Catalogue>('GET', '/api/catalogue'),
  /** A Python model's model.py, read-only: `path` is repository-relative. */
  modelSource: (name: string) => request<{ model: string; path: string; bytes: number; text: string }>('GET', `/api/models/${encodeURIComponent(name)}/source`),
  graphs: async () => (await request<{ graphs: GraphListing[] }>('GET', '/api/graphs')).graphs,
  graph: (name: string) => request<GraphDoc>('GET', `/api/graphs/${encodeURIComponent(name)}`),
  saveGraph: (graph: GraphDoc) => request<{ ok: true; diagnostics: Diagnostic[] }>('PUT', `/api/graphs/${encodeURIComponent(graph.name)}`, graph),
  deleteGraph: (name: string) => request<unknown>('DELETE', `/api/graphs/${encodeURIComponent(name)}`),
  compile: (graph: GraphDoc) => request<CompileResult>('POST', '/api/compile', { graph }),
  compileNode: (graph: GraphDoc, nodeId: string) => request<{ files: RepoFile[] }>('POST', '/api/compile', { graph, nodeId }),
  /** The repository `.zip` as a Blob. */
  async exportZip(graph: GraphDoc): Promise<Blob> {
    const res = await fetch('/api/export', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ graph }) });
    if (!res.ok) {
      const payload = (await res.json().catch(() => null)) as { error?: { code: string; message: string } } | null;
      throw new ApiError(payload?.error?.code ?? 'http', payload?.error?.message ?? `export failed: HTTP ${res.status}`, res.status);
    }
    return res.blob();
  },
};
