import type { TopK } from './tensorViews.ts';

/** One top-k result as a table: row, rank, index, value (and a label where the graph makes it obvious). */
export function TopKTable({ topk }: { topk: TopK }) {
  const labelled = topk.rows.some((r) => r.label !== undefined);
  return (
    <table className="topk small" data-testid="topk" data-node={topk.nodeId}>
      <caption className="muted">
        top-k of <b>{topk.nodeId}</b> ({topk.indices}, {topk.values})
      </caption>
      <thead>
        <tr>
          <th>row</th>
          <th>rank</th>
          <th>index</th>
          {labelled && <th>label</th>}
          <th>value</th>
        </tr>
      </thead>
      <tbody>
        {topk.rows.slice(0, 200).map((r) => (
          <tr key={`${r.row}.${r.rank}`}>
            <td>{r.row}</td>
            <td>{r.rank}</td>
            <td className="mono">{r.index}</td>
            {labelled && <td>{r.label ?? ''}</td>}
            <td className="mono">{r.value.toFixed(4)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
