import type { BaseIssue, IssuePathItem } from 'valibot';

/** A path as it reads in our messages: `nodes[3].params.count` (record keys as written, indices in brackets). */
function issuePath(path: readonly IssuePathItem[] | undefined): string {
  let out = '';
  for (const item of path ?? []) {
    const key = item.key;
    out += typeof key === 'number' ? `[${key}]` : `${out === '' ? '' : '.'}${String(key)}`;
  }
  return out;
}

/**
 * One valibot issue in our message style: the field's path, then what was expected
 * (`nodes[3].params.count must be an integer`). An issue at the root is named `root`.
 * @example issueMessage(v.safeParse(schema, doc).issues![0], 'document')
 */
export function issueMessage(issue: BaseIssue<unknown>, root: string): string {
  return `${issuePath(issue.path) || root} ${issue.message}`;
}

/** A received value, short enough for a message: strings cut at 40 characters, objects named by their kind. */
export function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (value === null || typeof value !== 'object') return String(value);
  return Array.isArray(value) ? 'an array' : 'an object';
}
