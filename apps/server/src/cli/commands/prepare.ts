import { prepareExamples } from '../../examples/prepare.ts';
import { parseCommandArgs, str, userPath } from '../args.ts';
import type { CliIO } from '../io.ts';

/**
 * `prepare-examples [--repo DIR]`: puts the example models in place (copied from npm packages,
 * generated synthetic models); idempotent.
 */
export async function prepareCommand(argv: string[], io: CliIO): Promise<number> {
  const { values } = parseCommandArgs(argv, { repo: { type: 'string' } }, 0);
  const files = await prepareExamples(userPath(str(values, 'repo', io.defaultRepo)!));
  for (const f of files) io.out(`${f.action.padEnd(10)} ${f.path}`);
  return 0;
}
