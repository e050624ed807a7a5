// Prints "N passed, M failed" from vitest's JSON report; exits non-zero when anything failed.
import { existsSync, readFileSync } from 'node:fs';
const [file, status] = process.argv.slice(2);
if (!existsSync(file)) {
  console.log('the test run ended before vitest reported (type errors, lint findings or an install failure above)');
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const r = JSON.parse(readFileSync(file, 'utf8'));
let passed = r.numPassedTests ?? 0;
let failed = r.numFailedTests ?? 0;
// A file that failed to load has status 'failed' and no failed assertions: count it.
for (const f of r.testResults ?? []) {
  const bad = (f.assertionResults ?? []).some((a) => a.status === 'failed');
  if (f.status === 'failed' && !bad) {
    failed += 1;
    console.log(`failed to load: ${f.name}: ${(f.message ?? '').split('\n')[0]}`);
  }
}
if (r.success === false && failed === 0) failed = 1;
if (Number(status) !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
