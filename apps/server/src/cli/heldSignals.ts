// SIGTERM and SIGINT that arrive while `serve` is still loading its modules (before it can shut down cleanly) are
// held here and handed to its handler once it is installed, instead of killing the process at once.

const held: NodeJS.Signals[] = [];
const hold = (sig: NodeJS.Signals): void => void held.push(sig);

/**
 * Holds SIGTERM and SIGINT from now until `releaseHeldSignals`.
 * @example holdSignals(); const { serveCommand } = await import('./commands/serve.ts')
 */
export function holdSignals(): void {
  process.on('SIGTERM', hold);
  process.on('SIGINT', hold);
}

/**
 * Stops holding signals and delivers the ones held to the handlers installed now.
 * @example closeOnSignals(close); releaseHeldSignals()
 */
export function releaseHeldSignals(): void {
  process.off('SIGTERM', hold);
  process.off('SIGINT', hold);
  for (const sig of held.splice(0)) process.emit(sig, sig);
}
