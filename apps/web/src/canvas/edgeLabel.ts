/** Edge labels are 11 px monospace (styles.css): every character is this wide, so a label is sized without measuring. */
export const LABEL_CHAR_PX = 6.6;
/** Distance between the baselines of a two-line label. */
export const LABEL_LINE_PX = 13;
/** Padding inside a label's background, and the space kept clear of a port's handle on either side of the label. */
export const LABEL_PAD = { x: 4, y: 2, clear: 8 } as const;

/**
 * The lines a `FP32 [1,3,-1,-1]` label is drawn on: one when it fits in `room` pixels (the gap between its nodes),
 * else the dtype above the shape, which keeps it off the nodes either side.
 * @example labelLines('FP32 [1,3,-1,-1]', 90) // ['FP32 ', '[1,3,-1,-1]']
 */
export function labelLines(text: string, room: number): string[] {
  const space = text.indexOf(' ');
  if (space < 0 || text.length * LABEL_CHAR_PX + 2 * LABEL_PAD.x <= room) return [text];
  // The space stays on the first line so the label's text reads the same as one line.
  return [text.slice(0, space + 1), text.slice(space + 1)];
}

/** The background box of a label drawn on `lines`, centred on its anchor. */
export function labelBox(lines: string[]): { width: number; height: number } {
  const longest = Math.max(...lines.map((l) => l.trimEnd().length));
  return {
    width: longest * LABEL_CHAR_PX + 2 * LABEL_PAD.x,
    height: lines.length * LABEL_LINE_PX + 2 * LABEL_PAD.y,
  };
}

/** Vertical distance between two ports of a node (a 12 px line at 1.3 and the 2 px gap between ports). */
const PORT_PITCH_PX = 17.6;

/**
 * How far to move the label of edge `k` of `n` into the same node (ordered top to bottom) off its own edge, so
 * labels taller than the ports are apart stack without covering each other.
 * @example stackOffset([0, 2], 30) // -7.2: the upper one moves up, the lower one (stackOffset([1, 2], 30)) down
 */
export function stackOffset([k, n]: [number, number], height: number): number {
  const spread = Math.max(0, height + 2 - PORT_PITCH_PX);
  return spread === 0 ? 0 : (k - (n - 1) / 2) * spread;
}
