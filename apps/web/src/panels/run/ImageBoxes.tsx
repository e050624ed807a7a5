/** The uploaded image with detected boxes drawn over it (SVG in image pixels). */
export function ImageBoxes({ url, width, height, boxes }: { url: string; width: number; height: number; boxes: number[][] | null }) {
  return (
    <div className="image-boxes">
      <img src={url} alt="input" />
      <svg viewBox={`0 0 ${width} ${height}`} preserveAspectRatio="none">
        {(boxes ?? []).map((b, i) => (
          <g key={i} className="box">
            <rect x={b[0]} y={b[1]} width={(b[2] ?? 0) - (b[0] ?? 0)} height={(b[3] ?? 0) - (b[1] ?? 0)} />
            <text x={b[0]} y={(b[1] ?? 0) - 3}>{i}</text>
          </g>
        ))}
      </svg>
      {boxes && <div className="small muted" data-testid="box-count">{boxes.length} box{boxes.length === 1 ? '' : 'es'}</div>}
    </div>
  );
}
