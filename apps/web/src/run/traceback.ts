/** A frame of a Python traceback: the file as Python printed it, and the line. */
export interface Frame {
  file: string;
  line: number;
}

const FRAME = /^\s*File "([^"]+)", line (\d+)/gm;

/**
 * The innermost frame of a Python traceback that lies in `file` (a repository-relative path such as
 * `add_one/1/model.py`, matched as the end of the printed path), else the innermost frame at all; null when the text
 * has no frame.
 * @example tracebackFrame('  File "/repo/add_one/1/model.py", line 12, in execute\nValueError', 'add_one/1/model.py') // { file: '/repo/add_one/1/model.py', line: 12 }
 */
export function tracebackFrame(traceback: string, file?: string | null): Frame | null {
  const frames = [...traceback.matchAll(FRAME)].map((m) => ({ file: m[1]!, line: Number(m[2]) }));
  const mine = file ? frames.filter((f) => f.file === file || f.file.endsWith(`/${file}`)) : [];
  return mine.at(-1) ?? frames.at(-1) ?? null;
}

/** `model.py:12`: where a frame is, short enough for a node. */
export const frameLabel = (f: Frame): string => `${f.file.split('/').at(-1)}:${f.line}`;
