/**
 * Splits highlight.js's HTML for a whole file into one balanced HTML string per source line: a span open across a
 * line break (a docstring, a multi-line string) is closed at the end of the line and opened again on the next, so
 * each line can be its own row that wraps.
 * @example highlightLines('<span class="s">"""a\nb"""</span>') // ['<span class="s">"""a</span>', '<span class="s">b"""</span>']
 */
export function highlightLines(html: string): string[] {
  const lines: string[] = [];
  const open: string[] = [];
  let line = '';
  for (const [token] of html.matchAll(/<span[^>]*>|<\/span>|\n|[^<\n]+|</g)) {
    if (token === '\n') {
      lines.push(line + '</span>'.repeat(open.length));
      line = open.join('');
    } else if (token.startsWith('<span')) {
      open.push(token);
      line += token;
    } else if (token === '</span>') {
      open.pop();
      line += token;
    } else line += token;
  }
  lines.push(line + '</span>'.repeat(open.length));
  return lines;
}
