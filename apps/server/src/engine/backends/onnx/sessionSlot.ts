import type * as ort from 'onnxruntime-node';

type Feeds = Record<string, ort.Tensor>;

/**
 * A worker's onnxruntime session that can be replaced while requests use it: the runs started on the old session
 * finish before it is released (onnxruntime fails a run whose session was released: "Session already disposed"),
 * and a run asked for meanwhile waits for the new one.
 * @example const slot = new SessionSlot(); slot.set(session); await slot.run(feeds); await slot.renew(create);
 */
export class SessionSlot {
  private session: ort.InferenceSession | undefined;
  private inFlight = 0;
  private drained: (() => void) | undefined;
  private renewal: Promise<void> | undefined;
  /** Checks a run's feeds before the session sees them (rejects to refuse the run). */
  guard: ((feeds: Feeds) => Promise<void>) | undefined;

  set(session: ort.InferenceSession): void {
    this.session = session;
  }

  /** Runs the session, after a replacement under way. */
  async run(feeds: Feeds): Promise<ort.InferenceSession.ReturnType> {
    await this.guard?.(feeds);
    while (this.renewal) await this.renewal;
    const s = this.session;
    if (!s) throw new Error('model session is not loaded');
    this.inFlight++;
    try {
      return await s.run(feeds);
    } finally {
      if (--this.inFlight === 0) this.drained?.();
    }
  }

  /** Replaces the session with `create()`'s once the runs on it are done; callers at the same time share one. */
  renew(create: () => Promise<ort.InferenceSession>): Promise<void> {
    this.renewal ??= this.replace(create).finally(() => (this.renewal = undefined));
    return this.renewal;
  }

  private async replace(create: () => Promise<ort.InferenceSession>): Promise<void> {
    await this.close();
    this.session = await create();
  }

  /** Releases the session once the runs on it are done; a run asked for after that fails ('not loaded'). */
  async close(): Promise<void> {
    const old = this.session;
    this.session = undefined;
    if (this.inFlight > 0) await new Promise<void>((resolve) => (this.drained = resolve));
    this.drained = undefined;
    await old?.release();
  }
}
