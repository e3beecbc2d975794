/**
 * TurboFan settings for a process that hosts a cluster (`kubemix` and the benchmark). Such a process runs
 * three busy V8 heaps (API server, components, node host), and each compiles the hot code it runs on its
 * own: much of the same client, informer and JSON code three times over. The compile jobs run on V8's
 * helper threads, which on two cores take CPU from the cluster's own threads while the cluster starts.
 *
 * - Inlining budget: a function TurboFan optimizes takes in callees until their bytecode adds up to
 *   `--max-inlined-bytecode-size-cumulative` (V8's default 920 bytes; V8 keeps it "not too high, to ensure
 *   that TurboFan compilation doesn't take too long"). With 300, 5,000 nodes were all Ready in 15.9 and
 *   16.3 s against 17.2 and 17.3 s (on 2 cores, with the heap growth of `gc-settings.ts`), and the pods of
 *   the benchmark's steady state (1,000 nodes, 30,000 pods) ran as fast (17.7 and 18.5 s against 18.0 and
 *   19.0 s). Small callees (up to 27 bytes of bytecode: getters, tiny helpers) are inlined whatever the
 *   budget.
 *
 * The flag is read at each compile job, so setting it before the cluster starts reaches every heap.
 */
import { setFlagsFromString } from 'node:v8';

/** TurboFan's cumulative inlining budget per optimized function, bytes of bytecode. */
export const inliningBudgetBytes = 300;

export function tuneCompiler(): void {
  setFlagsFromString(`--max-inlined-bytecode-size-cumulative=${inliningBudgetBytes}`);
}
