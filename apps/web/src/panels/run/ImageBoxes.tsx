import type { BoxCorners } from './outputs.ts';

/** The uploaded image with detected boxes drawn over it (SVG polygons in image pixels; boxes may be tilted). */
export function ImageBoxes({
  url,
  width,
  height,
  boxes,
}: {
  url: string;
  width: number;
  height: number;
  boxes: BoxCorners[] | null;
}) {
  return (
    <div className="image-boxes">
      <img src={url} alt="input" />
      <svg viewBox={`0 0 ${width} ${height}`} preserveAspectRatio="none">
        {(boxes ?? []).map((b, i) => (
          <g key={i} className="box">
            <polygon points={b.map(([x, y]) => `${x},${y}`).join(' ')} />
            <text x={b[0]?.[0] ?? 0} y={(b[0]?.[1] ?? 0) - 3}>
              {i}
            </text>
          </g>
        ))}
      </svg>
      {boxes && (
        <div className="small muted" data-testid="box-count">
          {boxes.length} box{boxes.length === 1 ? '' : 'es'}
        </div>
      )}
    </div>
  );
}
