/**
 * How far a V8 heap may grow past its live data before the next full collection. Left alone, V8 lets a
 * heap grow to as much as 4x its live data when collecting is cheap next to allocating. A cluster process
 * has three such heaps (API server, components, node host), each holding its own view of every pod, and
 * at 5,000 nodes and 150,000 pods that slack, not the objects, was most of the process's memory. 100% is
 * Go's default (GOGC=100), the target the real control plane's collector keeps to.
 */
import { setFlagsFromString } from 'node:v8';

export const heapGrowingPercent = 100;

/**
 * Sets the growth for every heap of this process (V8 flags are process-wide and this one is read at each
 * full collection). For the processes that host a cluster: `kubemix` and the benchmark.
 */
export function limitHeapGrowth(): void {
  setFlagsFromString(`--heap-growing-percent=${heapGrowingPercent}`);
}
