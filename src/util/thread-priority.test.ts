import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { threadNiceness } from '../../test/harness/threads.js';

const moduleUrl = new URL('./thread-priority.js', import.meta.url).href;
const harnessUrl = new URL('../../test/harness/threads.js', import.meta.url).href;

test('lowerThreadPriority raises the nice value of the calling thread only', { skip: process.platform !== 'linux' }, async () => {
  const before = threadNiceness();
  const script = `
    const { parentPort } = require('node:worker_threads');
    (async () => {
      const { lowerThreadPriority } = await import(${JSON.stringify(moduleUrl)});
      const { threadNiceness } = await import(${JSON.stringify(harnessUrl)});
      const set = lowerThreadPriority(7);
      parentPort.postMessage({ set, niceness: threadNiceness() });
    })();
  `;
  const worker = new Worker(script, { eval: true });
  const answer = await new Promise<{ set: boolean; niceness: number }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await worker.terminate();
  assert.deepEqual(answer, { set: true, niceness: Math.min(19, before + 7) });
  assert.equal(threadNiceness(), before, 'the thread that started the worker keeps its priority');
});
