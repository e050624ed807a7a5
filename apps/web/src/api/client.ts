import type {
  ApiCatalogue,
  ApiCompileNodeResponse,
  ApiCompileRequest,
  ApiCompileResponse,
  ApiErrorBody,
  ApiGraph,
  ApiGraphList,
  ApiGraphRequest,
  ApiHealth,
  ApiModelSource,
  ApiSaveGraphRequest,
  ApiSaveGraphResponse,
  GraphDoc,
} from '@ensemble-studio/core';

/** An error the server reported (`{ error: { code, message } }`) or a network failure. */
class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 0,
  ) {
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
    const payload = (await res.json().catch(() => null)) as Partial<ApiErrorBody> | null;
    throw new ApiError(
      payload?.error?.code ?? 'http',
      payload?.error?.message ?? `${method} ${path}: HTTP ${res.status}`,
      res.status,
    );
  }
  return (await res.json()) as T;
}

/** The studio server's HTTP API (same origin). */
export const api = {
  health: () => request<ApiHealth>('GET', '/api/health'),
  catalogue: () => request<ApiCatalogue>('GET', '/api/catalogue'),
  /** A Python model's model.py, read-only: `path` is repository-relative. */
  modelSource: (name: string) => request<ApiModelSource>('GET', `/api/models/${encodeURIComponent(name)}/source`),
  graphs: async () => (await request<ApiGraphList>('GET', '/api/graphs')).graphs,
  graph: (name: string) => request<ApiGraph>('GET', `/api/graphs/${encodeURIComponent(name)}`),
  saveGraph: (graph: GraphDoc) =>
    request<ApiSaveGraphResponse>(
      'PUT',
      `/api/graphs/${encodeURIComponent(graph.name)}`,
      graph satisfies ApiSaveGraphRequest,
    ),
  deleteGraph: (name: string) => request<unknown>('DELETE', `/api/graphs/${encodeURIComponent(name)}`),
  compile: (graph: GraphDoc) =>
    request<ApiCompileResponse>('POST', '/api/compile', { graph } satisfies ApiCompileRequest),
  compileNode: (graph: GraphDoc, nodeId: string) =>
    request<ApiCompileNodeResponse>('POST', '/api/compile', { graph, nodeId } satisfies ApiCompileRequest),
  /** The repository `.zip` as a Blob. */
  async exportZip(graph: GraphDoc): Promise<Blob> {
    const res = await fetch('/api/export', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ graph } satisfies ApiGraphRequest),
    });
    if (!res.ok) {
      const payload = (await res.json().catch(() => null)) as Partial<ApiErrorBody> | null;
      throw new ApiError(
        payload?.error?.code ?? 'http',
        payload?.error?.message ?? `export failed: HTTP ${res.status}`,
        res.status,
      );
    }
    return res.blob();
  },
};
