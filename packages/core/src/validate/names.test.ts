import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { pyIdent } from '../compile/pyStr.ts';
import { isPythonIdentifier, PYTHON_KEYWORDS, PYTHON_SOFT_KEYWORDS } from './names.ts';

/** The interpreter's own keyword lists. */
function pythonKeywords(): { kwlist: string[]; softkwlist: string[] } {
  const code = 'import json, keyword; print(json.dumps({"kwlist": keyword.kwlist, "softkwlist": keyword.softkwlist}))';
  return JSON.parse(execFileSync('python3', ['-c', code], { encoding: 'utf8' })) as {
    kwlist: string[];
    softkwlist: string[];
  };
}

describe('the Python name table', () => {
  it("holds exactly the interpreter's keywords, and at least its soft keywords", () => {
    const { kwlist, softkwlist } = pythonKeywords();
    expect([...PYTHON_KEYWORDS].sort()).toEqual([...kwlist].sort());
    for (const soft of softkwlist) expect(PYTHON_SOFT_KEYWORDS).toContain(soft);
  });

  it('refuses keywords as port names but allows soft keywords, which Python accepts as names', () => {
    expect(isPythonIdentifier('lambda')).toBe(false);
    expect(isPythonIdentifier('match')).toBe(true);
  });

  it('keeps generated identifiers clear of every keyword, soft ones too', () => {
    for (const k of [...PYTHON_KEYWORDS, ...PYTHON_SOFT_KEYWORDS]) expect(pyIdent(k)).toBe(`${k}_`);
  });
});
