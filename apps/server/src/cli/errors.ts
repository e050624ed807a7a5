/** Wrong command line: exit code 2, one line on stderr. */
export class UsageError extends Error {}
/** A command that ran and failed (diagnostics, run error, unreadable file): exit code 1. */
export class CliError extends Error {}

export const USAGE = `usage: ensemble-studio <command> [options]
  serve [--repo DIR] [--port N] [--grpc-port N|0|off] [--metrics-port N|0|off] [--host H] [--token T] [--event-loop realtime|slice|off] [--allow-client-shm] [--log-verbose N] [--trace-config [triton,]SETTING=VALUE]... [--cache-config local,size=BYTES]
  validate [NAME|GRAPH.json] [--repo DIR] [--json] [--effective]
  compile NAME|GRAPH.json [--repo DIR] --out DIR [--zip FILE]
  import TRITON_REPO --out DIR
  run NAME|GRAPH.json [--repo DIR] --input NAME=FILE ... [--sequence] [--timeout MS]
  prepare-examples [--repo DIR]
exit codes: 0 ok, 1 diagnostics or run error, 2 usage`;
