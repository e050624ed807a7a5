import { describe, expect, it } from 'vitest';
import hljs from 'highlight.js/lib/core';
import python from 'highlight.js/lib/languages/python';
import { highlightLines } from './highlightLines.ts';

hljs.registerLanguage('python', python);

const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, '')
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<');

describe('highlightLines', () => {
  const source = 'class M:\n    """Doc\n    more"""\n    def f(self):\n        return a < "x"\n';
  const lines = highlightLines(hljs.highlight(source, { language: 'python' }).value);

  it('gives one line of HTML per source line, with the same text', () => {
    expect(lines.map(text)).toEqual(source.split('\n'));
  });

  it('closes a span that runs across a line break and opens it again on the next line', () => {
    for (const line of lines) {
      expect(line.match(/<span/g)?.length ?? 0, line).toBe(line.match(/<\/span>/g)?.length ?? 0);
    }
    expect(lines[1]).toBe(`    <span class="hljs-string">${'&quot;'.repeat(3)}Doc</span>`);
    expect(lines[2]).toBe(`<span class="hljs-string">    more${'&quot;'.repeat(3)}</span>`);
  });
});
