/**
 * CPU priority of the worker threads of a process that hosts a cluster (`kubemix` and the benchmark).
 *
 * Every client of the cluster waits on the API server's thread, so on a machine with fewer cores than busy
 * threads it must not wait its turn behind them: in a real cluster kube-apiserver has control-plane cores of
 * its own. The components thread (scheduler and controllers) and the node host thread therefore run at a
 * higher nice value than the API server's thread; they still get every core the API server leaves idle.
 * At 5,000 nodes and 30,000 pods on 2 cores, interleaved runs: pods Running in 42-43 s against 48-51 s,
 * mutating p50 88-98 ms against 254-258 ms, mutating p99 1.3-2.1 s against 4.0-4.3 s.
 *
 * The components thread gets the lower priority of the two: when it falls behind, pods wait to be created
 * and scheduled, while a node host that falls behind lets leases and pod statuses go stale.
 */
import { setPriority } from 'node:os';

/** The nice value of the components thread (the scheduler and the controller manager). */
export const componentsThreadNiceness = 10;

/** The nice value of the node host thread (the simulated kubelets). */
export const nodeHostThreadNiceness = 5;

/**
 * Sets the calling thread's nice value. Only on Linux, where a nice value belongs to a thread: elsewhere
 * `setpriority` would lower the priority of the whole process, the API server's thread included. Answers
 * whether it was set; a refusal (a sandbox that forbids it) leaves the thread as it was.
 */
export function lowerThreadPriority(niceness: number): boolean {
  if (process.platform !== 'linux') return false;
  try {
    // Thread id 0 is the calling thread.
    setPriority(0, niceness);
    return true;
  } catch {
    return false;
  }
}
