import { status } from '@grpc/grpc-js';
import { grpcStatus } from './status.ts';

/** A repository parameter as proto-loader gives it: `parameter_choice` names the one set. */
type RepositoryParameter = {
  parameter_choice?: 'bool_param' | 'int64_param' | 'string_param' | 'bytes_param';
  bool_param?: boolean;
};

/** RepositoryIndex, RepositoryModelLoad and RepositoryModelUnload requests, as far as their checks read them. */
export type RepositoryRequest = {
  repository_name?: string;
  model_name: string;
  parameters?: Record<string, RepositoryParameter>;
};

/** Triton serves one repository, unnamed: a request naming one is refused (UNSUPPORTED, gRPC's UNIMPLEMENTED). */
export function refuseRepositoryName(r: { repository_name?: string }): void {
  if (r.repository_name) throw grpcStatus(status.UNIMPLEMENTED, "'repository_name' specification is not supported");
}

/**
 * A load's parameters checked as Triton checks them, in their order: `config` must be a string, `file:…` bytes,
 * and nothing else is known. The studio then refuses both overrides: it loads models from its repository on disk.
 */
export function checkLoadParameters(r: RepositoryRequest): void {
  const overrides: string[] = [];
  for (const [key, p] of Object.entries(r.parameters ?? {})) {
    const expected = key === 'config' ? 'string_param' : key.startsWith('file:') ? 'bytes_param' : undefined;
    if (expected === undefined) throw grpcStatus(status.INVALID_ARGUMENT, `unrecognized load parameter '${key}'.`);
    if (p.parameter_choice !== expected)
      throw grpcStatus(
        status.INVALID_ARGUMENT,
        `invalid value type for load parameter '${key}', expected ${expected}.`,
      );
    overrides.push(key);
  }
  if (overrides.length > 0)
    throw grpcStatus(
      status.INVALID_ARGUMENT,
      overridesRefusal(r.model_name, overrides.slice(0, NAMED_OVERRIDES), overrides.length),
    );
}

/** How many of a load's overrides its refusal names (a request may carry thousands). */
export const NAMED_OVERRIDES = 8;

/**
 * Why a load with overrides (`config`, `file:…`) is refused, naming the first `named` of its `count` overrides.
 * @example overridesRefusal('m', ['config'], 1) // "load of 'm' with config is not supported: …"
 */
export function overridesRefusal(model: string, named: string[], count: number): string {
  const more = count > named.length ? ` and ${count - named.length} more` : '';
  return `load of '${model}' with ${named.join(', ')}${more} is not supported: the studio loads models from its repository on disk (edit the files, then load)`;
}

/**
 * An unload's `unload_dependents`, checked as Triton checks it: it must be a bool_param (other parameters are
 * ignored); true when the request asks for the model's dependents to be unloaded with it.
 */
export function unloadDependents(r: RepositoryRequest): boolean {
  const params = r.parameters ?? {};
  if (!Object.hasOwn(params, 'unload_dependents')) return false;
  const p = params.unload_dependents!;
  if (p.parameter_choice !== 'bool_param')
    throw grpcStatus(
      status.INVALID_ARGUMENT,
      "invalid value type for 'unload_dependents' parameter, expected bool_param.",
    );
  return p.bool_param === true;
}
