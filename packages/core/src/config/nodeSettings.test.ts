import { describe, expect, it } from 'vitest';
import { fixtureCatalogue, graphFixture } from '../testing/fixtures.ts';
import { validateGraph } from '../validate/validateGraph.ts';
import { applySettings, effectiveModel, sameSettings, schedulingOf } from './nodeSettings.ts';

const catalogue = fixtureCatalogue();
const vad = catalogue.models.vad!;
const identity = catalogue.models.identity!;

describe('schedulingOf: a node setting overrides the config', () => {
  it('takes the config when the node sets nothing', () => {
    expect(schedulingOf(vad.config)).toMatchObject({
      maxBatchSize: 1,
      decoupled: false,
      dynamicBatching: undefined,
      sequenceBatching: vad.config.sequence_batching,
    });
  });

  it('takes each field the node sets', () => {
    const group = [{ count: 3, kind: 'KIND_CPU' as const }];
    const s = schedulingOf(identity.config, { max_batch_size: 2, decoupled: true, instance_group: group });
    expect(s).toMatchObject({ maxBatchSize: 2, decoupled: true, instanceGroup: group });
  });

  it('removes a scheduler set to null', () => {
    expect(schedulingOf(vad.config, { sequence_batching: null }).sequenceBatching).toBeUndefined();
  });

  it('keeps the other scheduler when the node sets one: a stateful model must not lose its state silently', () => {
    const s = schedulingOf(vad.config, { dynamic_batching: { max_queue_delay_microseconds: 100 } });
    expect(s.sequenceBatching).toBe(vad.config.sequence_batching);
    expect(s.dynamicBatching).toEqual({ max_queue_delay_microseconds: 100 });
  });
});

describe('applySettings', () => {
  it('writes what schedulingOf reads, on a copy named after the model', () => {
    const before = JSON.stringify(vad.config);
    const settings = {
      max_batch_size: 4,
      dynamic_batching: { preferred_batch_size: [4] },
      sequence_batching: null,
      decoupled: true,
    };
    const config = applySettings(vad, settings);
    expect(config).toMatchObject({
      name: 'vad',
      max_batch_size: 4,
      dynamic_batching: { preferred_batch_size: [4] },
      model_transaction_policy: { decoupled: true },
    });
    expect(config.sequence_batching).toBeUndefined();
    expect(schedulingOf(config)).toEqual(schedulingOf(vad.config, settings));
    expect(JSON.stringify(vad.config)).toBe(before);
  });
});

describe('effectiveModel', () => {
  it('is undefined for a model the catalogue lacks, even one named like an inherited property', () => {
    const g = graphFixture().model('m', 'constructor').doc();
    const node = g.nodes[0]!;
    expect(node.kind === 'model' && effectiveModel(node, catalogue)).toBe(undefined);
  });

  it('what the validator checks is what the compiler writes: both schedulers, reported', () => {
    const settings = { dynamic_batching: { max_queue_delay_microseconds: 0 } };
    const g = graphFixture().model('v', 'vad', settings).doc();
    const messages = validateGraph(g, catalogue).map((d) => d.message);
    expect(messages.join('\n')).toContain('cannot both be set');
    const config = applySettings(vad, settings);
    expect([config.dynamic_batching, config.sequence_batching]).toEqual([
      settings.dynamic_batching,
      vad.config.sequence_batching,
    ]);
  });
});

describe('sameSettings', () => {
  it('ignores key order and undefined members', () => {
    expect(sameSettings({ max_batch_size: 4, decoupled: true }, { decoupled: true, max_batch_size: 4 })).toBe(true);
    expect(sameSettings(undefined, { decoupled: undefined })).toBe(true);
    expect(sameSettings({ max_batch_size: 4 }, { max_batch_size: 2 })).toBe(false);
  });
});
