import { describe, expect, it } from 'vitest';
import type { GraphNode, Tensor } from '@ensemble-studio/core';
import {
  generatedStepInputs,
  inputCountMessage,
  OMITTED,
  StepInputsError,
  withoutPlaceholders,
} from './omittedInputs.ts';

const pos = { x: 0, y: 0 };
const t: Tensor = { datatype: 'FP32', shape: [1], data: Float32Array.of(1) };
const cond: GraphNode = {
  id: 'gate',
  kind: 'condition',
  position: pos,
  params: { expression: 'x > 0', strategy: 'gate', ports: ['x', 'y'], message: '', defaults: {} },
};

describe('a step reached by a placeholder', () => {
  it("is checked as Triton's ValidateRequestInputs words it, both forms", () => {
    expect(inputCountMessage('m', [{ name: 'A' }, { name: 'B' }], ['A'])).toBe(
      "expected 2 inputs but got 1 inputs for model 'm'. Got input(s) ['A'], but missing required input(s) ['B']. Please provide all required input(s).",
    );
    expect(inputCountMessage('m', [{ name: 'A' }, { name: 'B', optional: true }], [])).toBe(
      "expected number of inputs between 1 and 2 but got 0 inputs for model 'm'. Got input(s) [], but missing required input(s) ['A']. Please provide all required input(s).",
    );
  });

  it('keeps the inputs it has, and asks for the model only when a placeholder was among them', () => {
    let asked = 0;
    const steps = {
      stepInputs: () => {
        asked++;
        return {
          model: 'm',
          inputs: [
            { port: 'A', name: 'A' },
            { port: 'B', name: 'B', optional: true },
          ],
        };
      },
    };
    expect(withoutPlaceholders([['A', t]], cond, steps)).toEqual({ A: t });
    expect(asked).toBe(0);
    expect(
      withoutPlaceholders(
        [
          ['A', t],
          ['B', OMITTED],
        ],
        cond,
        steps,
      ),
    ).toEqual({ A: t });
    // Triton counts only: one input of two with one required passes, even the optional one (the model gets it).
    expect(
      withoutPlaceholders(
        [
          ['A', OMITTED],
          ['B', t],
        ],
        cond,
        steps,
      ),
    ).toEqual({ B: t });
    const refused = withoutPlaceholders(
      [
        ['A', OMITTED],
        ['B', OMITTED],
      ],
      cond,
      steps,
    );
    expect(refused).toBeInstanceOf(StepInputsError);
    expect((refused as StepInputsError).code).toBe('invalid-input');
    expect(asked).toBe(3);
  });

  it('names the generated model and its inputs for a condition, an op and a copy router; none for a direct router', () => {
    expect(generatedStepInputs('my graph', cond)).toEqual({
      model: 'my_graph_gate',
      inputs: [
        { port: 'x', name: 'IN_x' },
        { port: 'y', name: 'IN_y' },
      ],
    });
    const router = (mode: 'copy' | 'direct'): GraphNode => ({
      id: 'r',
      kind: 'router',
      position: pos,
      params: { count: 2, mode },
    });
    expect(generatedStepInputs('g', router('copy'))).toEqual({ model: 'g_r', inputs: [{ port: 'in', name: 'in' }] });
    expect(generatedStepInputs('g', router('direct'))).toBeUndefined();
  });
});
