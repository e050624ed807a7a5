import { findServedModel, modelConfig, repositoryIndex } from '../../http/servedModels.ts';
import type { Studio } from '../../http/Studio.ts';
import { loadModel, unloadModel } from '../../http/modelLoading.ts';
import { modelStatistics } from '../../http/modelStatistics.ts';
import { repositoryRequest, type UndecodedRequest } from '../deferredRequests.ts';
import type { ProtoMessage } from '../loadService.ts';
import {
  checkLoadParameters,
  unloadDependents,
  refuseRepositoryName,
  type RepositoryRequest,
} from '../repositoryRequests.ts';

/** The extensions the gRPC endpoint serves (binary tensors and generate are HTTP's). */
const GRPC_EXTENSIONS = [
  'classification',
  'model_configuration',
  'sequence',
  'statistics',
  'model_repository',
  'parameters',
  'system_shared_memory',
  'logging',
  'trace',
  'schedule_policy',
];

type NameVersion = { name: string; version: string };

/** A handler's body: the request in, the response (or a thrown error) out. */
export type UnaryBody = (request: ProtoMessage) => unknown;

const served = (studio: Studio, r: NameVersion) =>
  findServedModel(studio, r.name, r.version === '' ? undefined : r.version);

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
      try {
        return { ready: served(studio, r).ready };
      } catch {
        return { ready: false };
      }
    },
    ServerMetadata: () => ({ name: 'ensemble-studio', version: studio.version, extensions: GRPC_EXTENSIONS }),
    ModelMetadata: (r: NameVersion) => {
      const s = served(studio, r);
      return {
        name: s.name,
        versions: s.versions.map(String),
        platform: s.platform,
        inputs: s.signature.inputs,
        outputs: s.signature.outputs,
      };
    },
    ModelConfig: (r: NameVersion) => ({ config: modelConfig(studio, served(studio, r)) }),
    ModelStatistics: (r: NameVersion) => ({
      model_stats: modelStatistics(
        studio,
        r.name === '' ? undefined : r.name,
        r.version === '' ? undefined : r.version,
      ),
    }),
    RepositoryIndex: (r: { repository_name?: string; ready: boolean }) => {
      refuseRepositoryName(r);
      return { models: repositoryIndex(studio).filter((m) => !r.ready || m.state === 'READY') };
    },
    RepositoryModelLoad: async (message: RepositoryRequest | UndecodedRequest) => {
      const r = await repositoryRequest(studio, 'RepositoryModelLoad', message);
      refuseRepositoryName(r);
      checkLoadParameters(r);
      await loadModel(studio, r.model_name);
      return {};
    },
    RepositoryModelUnload: async (message: RepositoryRequest | UndecodedRequest) => {
      const r = await repositoryRequest(studio, 'RepositoryModelUnload', message);
      refuseRepositoryName(r);
      await unloadModel(studio, r.model_name, unloadDependents(r));
      return {};
    },
  };
}
