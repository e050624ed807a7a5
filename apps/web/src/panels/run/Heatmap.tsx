import { useEffect, useRef } from 'react';
import type { HeatmapData } from './tensorViews.ts';

// Dark blue → teal → yellow: low → high.
const STOPS: [number, number, number][] = [
  [20, 24, 82],
  [33, 145, 140],
  [94, 201, 98],
  [253, 231, 37],
];

function ramp(x: number): [number, number, number] {
  const p = Math.max(0, Math.min(1, x)) * (STOPS.length - 1);
  const i = Math.min(STOPS.length - 2, Math.floor(p));
  const f = p - i;
  const a = STOPS[i]!;
  const b = STOPS[i + 1]!;
  return [a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f, a[2] + (b[2] - a[2]) * f];
}

/** A tensor plane as a heatmap, min → max over the colour ramp; one canvas pixel per value, scaled up by CSS. */
export function Heatmap({ name, map }: { name: string; map: HeatmapData }) {
  const ref = useRef<HTMLCanvasElement>(null);
  let min = Infinity;
  let max = -Infinity;
  for (const v of map.data)
    if (Number.isFinite(v)) {
      if (v < min) min = v;
      if (v > max) max = v;
    }
  useEffect(() => {
    const ctx = ref.current?.getContext('2d');
    if (!ctx) return;
    const img = ctx.createImageData(map.w, map.h);
    const span = max > min ? max - min : 1;
    map.data.forEach((v, i) => {
      const [r, g, b] = ramp((v - min) / span);
      img.data.set([r, g, b, 255], i * 4);
    });
    ctx.putImageData(img, 0, 0);
  }, [map, min, max]);
  return (
    <figure className="heatmap" data-testid="heatmap" data-tensor={name}>
      <canvas
        ref={ref}
        width={map.w}
        height={map.h}
        style={{ aspectRatio: String(map.aspect), maxWidth: `${Math.round(160 * map.aspect)}px` }}
      />
      <figcaption className="small muted">
        {name}: {map.h}×{map.w}
        {map.downsampled ? ' (box-averaged)' : ''} ·{' '}
        {Number.isFinite(min) ? `${min.toPrecision(3)} → ${max.toPrecision(3)}` : 'no finite values'}
      </figcaption>
    </figure>
  );
}
