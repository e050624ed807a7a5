// A chain's steps cross to a worker once: later requests for the same steps name them by id. Posting them costs
// the main thread ~20 µs a request and the worker as much again to read them (v8 serialisation of ~800 bytes of
// nested objects, engine README), against a number. Both sides keep the same set: the worker's mirrors what the main
// thread sent, in the order it sent it, and forgets what the main thread tells it to.
import type { ChainStep, ToWorker } from './workerProtocol.ts';

type ChainMessage = Extract<ToWorker, { type: 'chain' }>;

/**
 * How many step lists one worker keeps: a worker runs the fused groups of the graphs that use its model, a few per
 * graph; edited graphs make new ones, and the oldest are forgotten. A bound on memory, not a timing.
 */
const KEPT_STEPS = 64;

/**
 * The main thread's side, one per worker: which step lists that worker holds, by the identity of the list
 * (`chainSteps` returns the same list for the same group and feeds), least recently used first.
 * @example const sent = new StepsSent(); worker.postMessage(sent.message({ ...body, id })) // steps sent once
 */
export class StepsSent {
  private readonly ids = new Map<ChainStep[], number>();
  private nextId = 1;
  /** A post failed after the set changed: the worker may hold lists this side does not know of. */
  private unsure = false;

  constructor(private readonly cap = KEPT_STEPS) {}

  /**
   * `m` (a message of its own, not yet posted) as posted to this worker: its steps (and those of the request it hosts
   * next) replaced by their id where the worker has them, else sent with an id to keep them under. Call `failed()`
   * when the post then throws.
   */
  message(m: ChainMessage): ChainMessage {
    this.wire(m);
    if (m.next) {
      const request = { ...m.next.request };
      this.wire(request);
      m.next = { ...m.next, request };
    }
    return m;
  }

  /** The post of the last `message` threw: the worker is told to forget everything with the next one. */
  failed(): void {
    this.ids.clear();
    this.unsure = true;
  }

  /** Replaces `m.steps` by their id where the worker has them; else names them with a new id (evicting the oldest). */
  private wire(m: Pick<ChainMessage, 'steps' | 'stepsId' | 'forgetSteps'>): void {
    const steps = m.steps!;
    const known = this.ids.get(steps);
    if (known !== undefined) {
      this.ids.delete(steps); // most recently used last
      this.ids.set(steps, known);
      delete m.steps;
      m.stepsId = known;
      return;
    }
    m.stepsId = this.nextId++;
    if (this.unsure) {
      m.forgetSteps = 'all';
      this.unsure = false;
    } else if (this.ids.size >= this.cap) {
      const [oldest, id] = this.ids.entries().next().value!;
      this.ids.delete(oldest);
      m.forgetSteps = [id];
    }
    this.ids.set(steps, m.stepsId);
  }
}

/**
 * The worker's side: the step lists it was sent, by id. `take` gives a message's steps (and its hosted request's),
 * keeping new ones and forgetting what the message says to, in the order the messages came.
 * @example const kept = new StepsKept(); kept.take(msg); runChain(msg.steps!, …)
 */
export class StepsKept {
  private readonly byId = new Map<number, ChainStep[]>();

  /** Fills in `msg.steps` (and its `next` request's) from what this worker keeps; throws for an id it never had. */
  take(msg: ChainMessage): void {
    msg.steps = this.resolve(msg);
    if (msg.next) msg.next.request.steps = this.resolve(msg.next.request);
  }

  get size(): number {
    return this.byId.size;
  }

  private resolve(msg: ChainMessage): ChainStep[] {
    if (msg.forgetSteps === 'all') this.byId.clear();
    else if (msg.forgetSteps) for (const id of msg.forgetSteps) this.byId.delete(id);
    if (msg.steps) {
      if (msg.stepsId !== undefined) this.byId.set(msg.stepsId, msg.steps);
      return msg.steps;
    }
    const steps = msg.stepsId === undefined ? undefined : this.byId.get(msg.stepsId);
    if (!steps) throw new Error(`chain steps ${msg.stepsId} were never sent to this worker`);
    return steps;
  }
}
