import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  loadPackageDefinition,
  type GrpcObject,
  type ServiceClientConstructor,
  type ServiceDefinition,
} from '@grpc/grpc-js';
import { loadSync, type Options, type PackageDefinition } from '@grpc/proto-loader';

/** The folder holding `grpc_service.proto` and `model_config.proto`. */
export const PROTO_DIR = join(dirname(fileURLToPath(import.meta.url)), 'proto');

/**
 * How messages become JS objects: proto field names as written (the studio's JSON config uses
 * them too); 64-bit integers as strings, so a sequence id above 2^53 is seen whole and refused
 * rather than silently rounded; enums by name; `oneofs` names which parameter choice is set.
 */
export const PROTO_OPTIONS: Options = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [PROTO_DIR],
};

/**
 * A message of the service as proto-loader decodes it. The service is loaded from the .proto at run time, so there
 * is no static type; each handler checks the fields it reads.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ProtoMessage = any;

interface InferenceService {
  service: ServiceDefinition;
  client: ServiceClientConstructor;
  /** Every message and service of the .proto files as proto-loader read them (descriptors by full name). */
  definition: PackageDefinition;
}

let cached: InferenceService | undefined;

/**
 * `inference.GRPCInferenceService` loaded from the studio's own .proto files: its service
 * definition (for a server) and client constructor (for tests and tools). Loaded once.
 * @example server.addService(inferenceService().service, handlers)
 */
export function inferenceService(): InferenceService {
  if (cached) return cached;
  const definition = loadSync(join(PROTO_DIR, 'grpc_service.proto'), PROTO_OPTIONS);
  const pkg = (loadPackageDefinition(definition).inference as GrpcObject)
    .GRPCInferenceService as ServiceClientConstructor;
  cached = { service: pkg.service, client: pkg, definition };
  return cached;
}
