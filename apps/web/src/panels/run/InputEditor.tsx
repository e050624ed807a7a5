import { useState } from 'react';
import type { InputNode } from '@ensemble-studio/core';
import { formatShape } from '@ensemble-studio/core';
import { decodeAudio, TARGET_RATE } from '../../run/audioInput.ts';
import { decodeImage, imageLayout } from '../../run/imageInput.ts';
import { concreteShape, parseJsonTensor, randomTensor, type PreparedInput } from './prepare.ts';
import { sampleAudio, sampleTextImage } from './samples.ts';

interface Props {
  node: InputNode;
  batched: boolean;
  streaming: boolean;
  value: PreparedInput | undefined;
  onChange(v: PreparedInput | undefined): void;
}

/** One ensemble input: image upload, audio upload, or JSON/random fill — chosen from its dtype/dims. */
export function InputEditor({ node, batched, streaming, value, onChange }: Props) {
  const p = node.params;
  const layout = imageLayout(p.datatype, p.dims);
  const audio = streaming && p.datatype === 'FP32';
  const [error, setError] = useState<string | null>(null);
  const guard = async (f: () => Promise<void>) => {
    setError(null);
    try {
      await f();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const applyImage = (file: Blob, name: string) =>
    guard(async () => {
      const r = await decodeImage(file, layout!, batched);
      onChange({
        type: 'image',
        tensor: r.tensor,
        url: URL.createObjectURL(file),
        width: r.width,
        height: r.height,
        name,
      });
    });
  const applyAudio = (file: File) =>
    guard(async () => onChange({ type: 'audio', samples: await decodeAudio(file), name: file.name }));
  return (
    <div className="run-input" data-input={p.name}>
      <div className="ri-head">
        <b>{p.name}</b>{' '}
        <span className="muted mono small">
          {p.datatype} {formatShape(p.dims)}
          {p.optional ? ' optional' : ''}
        </span>
      </div>
      {layout && (
        <div className="ri-row">
          <input
            type="file"
            accept="image/*"
            aria-label={`Image for ${p.name}`}
            onChange={(e) => {
              const f = e.target.files?.[0];
              if (f) void applyImage(f, f.name);
            }}
          />
          <button onClick={() => void guard(async () => applyImage(await sampleTextImage(), 'sample text image'))}>
            Sample image
          </button>
        </div>
      )}
      {audio && (
        <div className="ri-row">
          <input
            type="file"
            accept="audio/*,.wav"
            aria-label={`Audio for ${p.name}`}
            onChange={(e) => {
              const f = e.target.files?.[0];
              if (f) void applyAudio(f);
            }}
          />
          <button onClick={() => onChange({ type: 'audio', samples: sampleAudio(), name: 'sample (3 s)' })}>
            Sample audio
          </button>
        </div>
      )}
      {!layout && !audio && <TensorEntry node={node} batched={batched} onChange={onChange} onError={setError} />}
      {value?.type === 'image' && (
        <p className="small muted">
          {value.name}: {value.width}×{value.height} → {value.tensor.datatype} {formatShape(value.tensor.shape)}
        </p>
      )}
      {value?.type === 'audio' && (
        <p className="small muted">
          {value.name}: {(value.samples.length / TARGET_RATE).toFixed(2)} s at 16 kHz, streamed in windows
        </p>
      )}
      {value?.type === 'tensor' && (
        <p className="small muted">
          {value.name}: {value.tensor.datatype} {formatShape(value.tensor.shape)}
        </p>
      )}
      {error && <p className="field-error">{error}</p>}
    </div>
  );
}

function TensorEntry({
  node,
  batched,
  onChange,
  onError,
}: {
  node: InputNode;
  batched: boolean;
  onChange(v: PreparedInput): void;
  onError(e: string | null): void;
}) {
  const shape = concreteShape(node.params.dims, batched);
  const [text, setText] = useState('');
  const apply = () => {
    try {
      onChange({ type: 'tensor', tensor: parseJsonTensor(text, node.params.datatype, shape), name: 'JSON' });
      onError(null);
    } catch (e) {
      onError((e as Error).message);
    }
  };
  return (
    <div className="ri-row col">
      <textarea
        className="mono nodrag"
        rows={2}
        placeholder={`JSON, e.g. ${JSON.stringify(
          Array(
            Math.min(
              4,
              shape.reduce((a, b) => a * b, 1),
            ),
          ).fill(0),
        )}`}
        value={text}
        onChange={(e) => setText(e.target.value)}
        onBlur={() => text && apply()}
      />
      <button
        onClick={() =>
          onChange({
            type: 'tensor',
            tensor: randomTensor(node.params.datatype, shape),
            name: `random ${formatShape(shape)}`,
          })
        }
      >
        Random fill
      </button>
    </div>
  );
}
