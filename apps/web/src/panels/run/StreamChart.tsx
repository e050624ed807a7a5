const W = 320;
const H = 90;

/** Probability over time for a sequence stream, one point per chunk; chunks above the threshold shaded as speech. */
export function StreamChart({ values: v, threshold = 0.5 }: { values: number[]; threshold?: number }) {
  const n = Math.max(v.length, 2);
  const x = (i: number) => (i / (n - 1)) * W;
  const y = (p: number) => H - Math.max(0, Math.min(1, p)) * H;
  const points = v.map((p, i) => `${x(i).toFixed(1)},${y(p).toFixed(1)}`).join(' ');
  return (
    <>
      <svg className="chart" viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" data-points={v.length}>
        {v.map((p, i) =>
          p > threshold ? (
            <rect key={i} className="speech" x={x(i) - W / n / 2} y={0} width={W / n} height={H} />
          ) : null,
        )}
        <line x1={0} x2={W} y1={y(threshold)} y2={y(threshold)} className="thresh" />
        <polyline points={points} className="line" />
      </svg>
      <div className="small muted">
        speech probability per {Math.round(512 / 16)} ms chunk · shaded = above {threshold}
      </div>
    </>
  );
}
