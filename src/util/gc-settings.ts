/**
 * V8 garbage-collector settings for a process that hosts a cluster (`kubemix` and the benchmark). Such a
 * process runs three busy V8 heaps (API server, components, node host), each holding its own view of every
 * pod, and V8's defaults assume one heap per process with cores to spare.
 *
 * - Heap growth: left alone, V8 lets a heap grow to as much as 4x its live data when collecting is cheap
 *   next to allocating; at 5,000 nodes and 150,000 pods that slack, not the objects, was most of the
 *   process's memory. 100% is Go's default (GOGC=100), the target the real control plane's collector keeps to.
 * - Young-generation collections (scavenges) run in parallel on V8's helper threads, which only pays when a
 *   core is idle for them. With three busy threads on two or three cores there is none: the helpers took
 *   CPU from the other heaps' threads (on 2 cores the four helpers used as much CPU as the API server's
 *   thread), so there each heap scavenges on its own thread.
 * - Young-generation size: a pod's object is replaced within seconds (binding, status), and each watching
 *   heap keeps the newest version; with V8's 16 MiB semi-spaces most versions outlive two scavenges and are
 *   copied twice before they die in the old generation. With 128 MiB more of them die young: at 5,000
 *   nodes and 150,000 pods, pods ran in 206.6 and 231.1 s (two runs) against 239.2 s with 64 MiB the
 *   same day (runs here vary by 10%), peak RSS 7.5 GiB against 7.0. V8 reads this flag when it creates a
 *   heap, so it reaches the worker threads started after `tuneGarbageCollection`; the main thread's heap
 *   takes it from the command line (`npm start` and `npm run bench` pass `--max-semi-space-size=128`).
 */
import { availableParallelism } from 'node:os';
import { setFlagsFromString } from 'node:v8';

export const heapGrowingPercent = 100;

/** Each heap's young-generation semi-space, MiB (V8 grows it up to this while much survives). */
export const semiSpaceMiB = 128;

/** The threads of a cluster process that run a busy V8 heap: API server, components, node host. */
const clusterHeapThreads = 3;

/** Whether parallel scavenging has a core to run on beside the cluster's heap threads. */
export function parallelScavengeWanted(cores: number): boolean {
  return cores > clusterHeapThreads;
}

/**
 * Applies the settings to the heaps of this process: V8 flags are process-wide; heap growth and parallel
 * scavenging are read at each collection, so the current heap and those created later (the worker
 * threads) follow them; the semi-space size only reaches heaps created later.
 */
export function tuneGarbageCollection(cores: number = availableParallelism()): void {
  setFlagsFromString(`--heap-growing-percent=${heapGrowingPercent}`);
  setFlagsFromString(`--max-semi-space-size=${semiSpaceMiB}`);
  if (!parallelScavengeWanted(cores)) setFlagsFromString('--no-parallel-scavenge');
}
