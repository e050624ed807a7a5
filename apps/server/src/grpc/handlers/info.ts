import { status } from '@grpc/grpc-js';
import { findServedModel, modelConfig, repositoryIndex } from '../../http/routes/kserve.ts';
import type { Studio } from '../../http/Studio.ts';
import { modelStatistics } from '../statistics.ts';
import { grpcStatus } from '../status.ts';

/** The extensions the gRPC endpoint serves (binary tensors and generate are HTTP's). */
export const GRPC_EXTENSIONS = ['model_configuration', 'sequence', 'statistics', 'model_repository', 'parameters'];

type NameVersion = { name: string; version: string };
/** A handler's body: the request in, the response (or a thrown error) out. */
export type UnaryBody = (request: any) => unknown;

const served = (studio: Studio, r: NameVersion) => findServedModel(studio, r.name, r.version === '' ? undefined : r.version);

/**
 * Health, metadata, config, repository and statistics RPCs: the same answers as the HTTP KServe
 * routes, built by the same functions.
 * @example const h = infoHandlers(studio); h.ServerLive({})
 */
export function infoHandlers(studio: Studio): Record<string, UnaryBody> {
  return {
    ServerLive: () => ({ live: true }),
    ServerReady: () => ({ ready: true }),
    ModelReady: (r: NameVersion) => {
      try { return { ready: served(studio, r).ready }; } catch { return { ready: false }; }
    },
    ServerMetadata: () => ({ name: 'ensemble-studio', version: studio.version, extensions: GRPC_EXTENSIONS }),
    ModelMetadata: (r: NameVersion) => {
      const s = served(studio, r);
      return { name: s.name, versions: s.versions.map(String), platform: s.platform, inputs: s.signature.inputs, outputs: s.signature.outputs };
    },
    ModelConfig: (r: NameVersion) => ({ config: modelConfig(studio, served(studio, r)) }),
    ModelStatistics: (r: NameVersion) => {
      if (r.name !== '') served(studio, r);
      return { model_stats: modelStatistics(studio, r.name === '' ? undefined : r.name) };
    },
    RepositoryIndex: (r: { ready: boolean }) => ({ models: repositoryIndex(studio).filter((m) => !r.ready || m.state === 'READY') }),
    RepositoryModelLoad: async (r: { model_name: string }) => {
      // Re-reading the repository picks up the model's edited config and files; the engine is swapped when it is ready.
      await studio.reloadRepository();
      served(studio, { name: r.model_name, version: '' });
      return {};
    },
    RepositoryModelUnload: () => {
      throw grpcStatus(status.UNIMPLEMENTED, 'RepositoryModelUnload: the studio serves every model of its repository; use RepositoryModelLoad to re-read a model from disk');
    },
  };
}
