/**
 * CPU priority of the components thread (the scheduler and the controller manager) of a process that hosts
 * a cluster (`kubemix` and the benchmark).
 *
 * Every client of the cluster waits on the API server's thread, so on a machine with fewer cores than busy
 * threads it must not wait its turn behind the components: in a real cluster kube-apiserver has
 * control-plane cores of its own. The components thread therefore runs at a higher nice value than the API
 * server's thread; it still gets every core the API server leaves idle. The node host thread keeps the
 * process's priority: its kubelets renew their leases on a clock (every 10 s, a node is lost after 40 s),
 * and when it ran at a higher nice value too, the renewals fell behind and events were dropped.
 *
 * At 5,000 nodes and 150,000 pods on 2 cores: mutating p99 0.9 s against 3.5-4.9 s, p50 56 ms against
 * 268-290 ms, pods Running in the same time (251 s against 247-267 s); pods now wait for the scheduler
 * instead of for the API server (pod startup p99 131 s against 6-28 s).
 */
import { getPriority, setPriority } from 'node:os';

/** How much higher the components thread's nice value is than the process's. */
export const componentsThreadNiceness = 10;

/** The highest nice value (the lowest priority). */
const maxNiceness = 19;

/**
 * Raises the calling thread's nice value by `by`, up to 19: relative to the process's own, so a cluster
 * started with `nice` keeps the same order among its threads. Only on Linux, where a nice value belongs to
 * a thread: elsewhere `setpriority` would lower the priority of the whole process, the API server's thread
 * included. Answers whether it was set; a refusal (a sandbox that forbids it) leaves the thread as it was.
 */
export function lowerThreadPriority(by: number): boolean {
  if (process.platform !== 'linux') return false;
  try {
    // Process id 0 is the calling thread on Linux.
    setPriority(0, Math.min(maxNiceness, getPriority(0) + by));
    return true;
  } catch {
    return false;
  }
}
