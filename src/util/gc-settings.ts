/**
 * V8 garbage-collector settings for a process that hosts a cluster (`kubemix` and the benchmark). Such a
 * process runs three busy V8 heaps (API server, components, node host), each holding its own view of every
 * pod, and V8's defaults assume one heap per process with cores to spare.
 *
 * - Heap growth: left alone, V8 lets a heap grow to as much as 4x its live data when collecting is cheap
 *   next to allocating; at 5,000 nodes and 150,000 pods that slack, not the objects, was most of the
 *   process's memory. So once the process holds `boundedGrowthFromMiB` resident, each heap grows by at most
 *   100% past its live data: Go's default (GOGC=100), the target the real control plane's collector keeps
 *   to. Below that the slack costs little and V8's own choice saves collections: at 5,000 nodes the heaps
 *   are small while the nodes start, and with 100% from the start their major collections (marking on
 *   the helper threads, which share the two cores) held all nodes Ready back by about 1 s (18.7 and
 *   18.2 s against 17.3 and 17.3 s, on 2 cores).
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

/** Resident memory, MiB, from which heaps grow by at most `heapGrowingPercent`. */
export const boundedGrowthFromMiB = 3072;

/** How often the process's resident memory is compared with `boundedGrowthFromMiB`. */
const growthCheckMs = 1000;

/** Each heap's young-generation semi-space, MiB (V8 grows it up to this while much survives). */
export const semiSpaceMiB = 128;

/** The threads of a cluster process that run a busy V8 heap: API server, components, node host. */
const clusterHeapThreads = 3;

/** Whether parallel scavenging has a core to run on beside the cluster's heap threads. */
export function parallelScavengeWanted(cores: number): boolean {
  return cores > clusterHeapThreads;
}

export interface GrowthPolicyOptions {
  /** Resident memory, MiB, from which growth is bounded (default `boundedGrowthFromMiB`; 0: from the start). */
  fromMiB?: number;
  /** The process's resident memory, bytes. */
  rss?: () => number;
  /** Sets a V8 flag (`v8.setFlagsFromString`). */
  setFlags?: (flags: string) => void;
  checkEveryMs?: number;
}

/**
 * Lets V8 choose each heap's growth until the process's resident memory reaches `fromMiB`, then bounds it
 * to `heapGrowingPercent` for good (a process that grew that large once keeps the bound). V8 reads the flag
 * at each collection, in every heap of the process. Answers a function that stops the check.
 */
export function boundHeapGrowthWhenLarge(o: GrowthPolicyOptions = {}): () => void {
  const setFlags = o.setFlags ?? setFlagsFromString;
  const rss = o.rss ?? (() => process.memoryUsage.rss());
  const fromBytes = (o.fromMiB ?? boundedGrowthFromMiB) * 1024 * 1024;
  const bound = (): void => setFlags(`--heap-growing-percent=${heapGrowingPercent}`);
  if (rss() >= fromBytes) {
    bound();
    return () => undefined;
  }
  // 0 is V8's own factor (`MemoryController::GrowingFactor` applies the flag only when it is above 0).
  setFlags('--heap-growing-percent=0');
  const timer = setInterval(() => {
    if (rss() < fromBytes) return;
    clearInterval(timer);
    bound();
  }, o.checkEveryMs ?? growthCheckMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Applies the settings to the heaps of this process: V8 flags are process-wide; heap growth and parallel
 * scavenging are read at each collection, so the current heap and those created later (the worker
 * threads) follow them; the semi-space size only reaches heaps created later.
 */
export function tuneGarbageCollection(cores: number = availableParallelism(), growth: GrowthPolicyOptions = {}): void {
  boundHeapGrowthWhenLarge(growth);
  setFlagsFromString(`--max-semi-space-size=${semiSpaceMiB}`);
  if (!parallelScavengeWanted(cores)) setFlagsFromString('--no-parallel-scavenge');
}
