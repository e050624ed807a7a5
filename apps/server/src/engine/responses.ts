import type { Tensor } from '@ensemble-studio/core';
import { OMITTED } from './omittedInputs.ts';

/**
 * A graph's responses as a client receives them: the outputs of each iteration, passed on as soon as every
 * output of that iteration has arrived (a decoupled graph sends one response per iteration). An output a node's
 * response left out arrives as a placeholder (`OMITTED`): it completes the iteration and is left out of what is
 * sent, as Triton's ensemble sends a response without the outputs its steps did not make (`CheckAndSetEnsembleOutput`).
 * Iterations that reached only some outputs are passed on, in order, when the run ends.
 * @example const r = new ResponseCollector(2, send); r.add(0, 'boxes', t); r.add(0, 'texts', u); // send({ boxes, texts })
 */
export class ResponseCollector {
  /** Per iteration still waiting: the outputs it has, and how many arrived (placeholders included). */
  private iterations = new Map<number, { outputs: Record<string, Tensor>; arrived: number }>();
  private finalNow = false;

  constructor(
    private readonly outputs: number,
    private readonly send: (outputs: Record<string, Tensor>, final: boolean) => void,
  ) {}

  /** While set, a response completed by `add` is the run's last (sent final) unless others still wait. */
  markFinal(final: boolean): void {
    this.finalNow = final;
  }

  /** Output `name` of iteration `iteration` arrived. */
  add(iteration: number, name: string, t: Tensor): void {
    const got = this.iterations.get(iteration) ?? { outputs: {}, arrived: 0 };
    if (t !== OMITTED) got.outputs[name] = t;
    if (++got.arrived < this.outputs) return void this.iterations.set(iteration, got);
    this.iterations.delete(iteration);
    this.send(got.outputs, this.finalNow && this.iterations.size === 0);
  }

  /** Sends what incomplete iterations have (a decoupled model may send responses carrying some outputs only). */
  flush(): void {
    const left = [...this.iterations.entries()].sort((a, b) => a[0] - b[0]);
    this.iterations.clear();
    for (const [, got] of left) this.send(got.outputs, false);
  }
}
