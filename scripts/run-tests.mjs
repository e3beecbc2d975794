// Runs every compiled test file under dist/ with node's built-in test runner.
// Usage: node scripts/run-tests.mjs [path-substring ...]  (filters test files by substring)
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function walk(dir, out) {
  for (const entry of readdirSync(dir)) {
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) walk(full, out);
    else if (entry.endsWith('.test.js')) out.push(full);
  }
  return out;
}

const filters = process.argv.slice(2);
const files = walk('dist', [])
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();
if (files.length === 0) {
  console.error('no test files found under dist/');
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  ['--test', '--test-concurrency=2', '--test-reporter=spec', ...files],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
