import { isObj } from '@ensemble-studio/core';
import { ApiError, badRequest } from './errors.ts';

// Triton's logging extension: what the server log shows of the models' lines (python_backend's `pb_utils.Logger`,
// print, stderr), read and changed at run time over HTTP (`/v2/logging`) and gRPC (`LogSettings`), with Triton's
// defaults (info, warnings and errors shown; verbose lines from level 1) and messages.

/** The settings as Triton reports them. */
export interface LogSettingsValues {
  log_file: string;
  log_info: boolean;
  log_warning: boolean;
  log_error: boolean;
  log_verbose_level: number;
  log_format: 'default' | 'ISO8601';
}

/** A gRPC `LogSettingsRequest.SettingValue` as proto-loader decodes it. */
interface WireSetting {
  parameter_choice?: string;
  bool_param?: boolean;
  uint32_param?: number;
  string_param?: string;
}

const FILE_FIXED = 'log file location can not be updated through network protocol';
const UINT32_MAX = 2 ** 32 - 1;

/** The server log's settings (one per server, shared by HTTP and gRPC). */
export class LogSettings {
  readonly values: LogSettingsValues = {
    log_file: '',
    log_info: true,
    log_warning: true,
    log_error: true,
    log_verbose_level: 0,
    log_format: 'default',
  };

  constructor(verboseLevel = 0) {
    this.values.log_verbose_level = verboseLevel;
  }

  /** Whether the server log shows a model's line of `level` (the Python stub's names: info, warn, error, verbose). */
  shows(level: string): boolean {
    const v = this.values;
    if (level === 'verbose') return v.log_verbose_level >= 1;
    return level === 'warn' ? v.log_warning : level === 'error' ? v.log_error : v.log_info;
  }

  /** A line as the server log writes it: with its time first in the ISO 8601 format. */
  format(line: string): string {
    return this.values.log_format === 'ISO8601' ? `${new Date().toISOString()} ${line}` : line;
  }

  /**
   * `POST /v2/logging`'s body applied as Triton's HTTP endpoint applies it: setting by setting in its order, a null
   * leaving one as it is, stopping at the first refused (those before it stay applied).
   * @example settings.updateFromJson({ log_verbose_level: 1 }) // the models' verbose lines show from now on
   * @throws ApiError with Triton's status and message.
   */
  updateFromJson(body: unknown): void {
    // JSON that is not an object names no setting: Triton's reader finds none in it.
    if (!isObj(body)) return;
    const has = (k: string) => Object.hasOwn(body, k) && body[k] !== null;
    if (has('log_file')) throw new ApiError(501, 'unsupported', FILE_FIXED);
    for (const key of ['log_info', 'log_warning', 'log_error'] as const) {
      if (!has(key)) continue;
      if (typeof body[key] !== 'boolean') throw badRequest('attempt to access JSON non-boolean as boolean');
      this.values[key] = body[key];
    }
    if (has('log_verbose_level')) {
      const n = body.log_verbose_level;
      if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0)
        throw badRequest('attempt to access JSON non-unsigned-integer as unsigned-integer');
      this.values.log_verbose_level = Math.min(n, UINT32_MAX);
    }
    if (has('log_format')) {
      const f = body.log_format;
      if (typeof f !== 'string') throw badRequest('attempt to access JSON non-string as string');
      // Triton answers this one UNAVAILABLE over HTTP.
      if (f !== 'default' && f !== 'ISO8601')
        throw new ApiError(503, 'unavailable', `invalid argument for --log_format, got: ${f}`);
      this.values.log_format = f;
    }
  }

  /**
   * A gRPC `LogSettingsRequest`'s settings applied as Triton's gRPC endpoint applies them (each a value of its type).
   * @throws ApiError with Triton's status and message.
   */
  updateFromGrpc(settings: Record<string, WireSetting> | undefined): void {
    const s = settings ?? {};
    const get = (k: string) => (Object.hasOwn(s, k) ? s[k] : undefined);
    if (get('log_file')) throw new ApiError(501, 'unsupported', FILE_FIXED);
    for (const key of ['log_info', 'log_warning', 'log_error'] as const) {
      const p = get(key);
      if (!p) continue;
      if (p.parameter_choice !== 'bool_param') throw badRequest(`expect boolean for '${key}'`);
      this.values[key] = p.bool_param === true;
    }
    const level = get('log_verbose_level');
    if (level) {
      if (level.parameter_choice !== 'uint32_param') throw badRequest("expect int32 for 'log_verbose_level'");
      this.values.log_verbose_level = Number(level.uint32_param ?? 0);
    }
    const format = get('log_format');
    if (format) {
      if (format.parameter_choice !== 'string_param') throw badRequest("expect string for 'log_format'");
      const f = format.string_param ?? '';
      if (f !== 'default' && f !== 'ISO8601') throw badRequest(`invalid argument for log_format, got: ${f}`);
      this.values.log_format = f;
    }
  }

  /** The settings as a gRPC `LogSettingsResponse`. */
  toGrpc(): { settings: Record<string, WireSetting> } {
    const v = this.values;
    return {
      settings: {
        log_file: { string_param: v.log_file },
        log_info: { bool_param: v.log_info },
        log_warning: { bool_param: v.log_warning },
        log_error: { bool_param: v.log_error },
        log_verbose_level: { uint32_param: v.log_verbose_level },
        log_format: { string_param: v.log_format },
      },
    };
  }
}
