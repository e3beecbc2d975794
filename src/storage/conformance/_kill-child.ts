/**
 * Child process of the conformance suite's durability test: opens a backend from the JSON options in
 * argv[2], then creates keys `<argv[3]>k<i>` (eight writes in flight, so commits are grouped) until it is
 * killed, printing `<key> <revision>` for every acknowledged write.
 */
import { openBackend, type OpenBackendOptions } from '../index.js';

async function main(): Promise<void> {
  const [optionsJson, keyPrefix] = process.argv.slice(2);
  if (optionsJson === undefined || keyPrefix === undefined) throw new Error('usage: _kill-child <options> <prefix>');
  const backend = await openBackend(JSON.parse(optionsJson) as OpenBackendOptions);
  process.stdout.write('ready\n');
  let next = 0;
  const writer = async (): Promise<void> => {
    for (;;) {
      const key = `${keyPrefix}k${next++}`;
      const revision = await backend.create(key, new TextEncoder().encode(`value of ${key}`));
      process.stdout.write(`${key} ${revision}\n`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, writer));
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
