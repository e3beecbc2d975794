import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';

const moduleUrl = new URL('./compiler-settings.js', import.meta.url).href;

/**
 * How many of ten callees (about 230 bytes of bytecode each) TurboFan inlines into the hot function that
 * calls them all, in a child process tuned (or not) before the code runs.
 */
function calleesInlined(tuned: boolean): number {
  const script = `
    const { tuneCompiler } = await import(${JSON.stringify(moduleUrl)});
    if (${String(tuned)}) tuneCompiler();
    const fs = [];
    for (let i = 0; i < 10; i++) {
      fs.push(new Function('o', \`let s = 0; for (const k in o) { if (o[k] > \${i}) s += o[k] * \${i + 1}; else s -= o[k]; } if (s > 1000) s = s % 97; return s + \${'(o.a | 0) + '.repeat(12)}0;\`));
    }
    function hot(o) { return fs[0](o) + fs[1](o) + fs[2](o) + fs[3](o) + fs[4](o) + fs[5](o) + fs[6](o) + fs[7](o) + fs[8](o) + fs[9](o); }
    let t = 0;
    for (let i = 0; i < 200000; i++) t += hot({ a: i & 7, b: 2, c: 3 });
    if (t === 0) process.stdout.write('no work');
  `;
  const out = execFileSync(process.execPath, ['--trace-turbo-inlining', '--input-type=module', '-e', script], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return out.split('\n').filter((l) => /^Inlining .* into .*<SharedFunctionInfo hot>/.test(l)).length;
}

test('tuneCompiler lowers the bytecode TurboFan inlines into one optimized function', () => {
  const free = calleesInlined(false);
  const tuned = calleesInlined(true);
  assert.ok(free >= 3, `V8's default budget inlined ${free} callees`);
  assert.ok(tuned >= 1 && tuned < free, `tuned: ${tuned} callees inlined, V8's default: ${free}`);
});
