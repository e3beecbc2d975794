/**
 * The threads of this process as Linux's `/proc` shows them: nice value and CPU time (tests that check which
 * thread runs at which priority, or how much CPU helper threads used).
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface ThreadStat {
  /** The thread id; the process id for the main thread. */
  tid: string;
  niceness: number;
  /** User and system CPU time, in clock ticks (1/100 s). */
  cpuTicks: number;
}

/** A task's `stat` file: its fields from the third (state) on, counted after the command name, which may hold spaces. */
function statFields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
}

function threadStat(tid: string, stat: string): ThreadStat {
  const f = statFields(stat);
  // Fields 14 and 15 (utime, stime) and 19 (nice).
  return { tid, niceness: Number(f[16]), cpuTicks: Number(f[11]) + Number(f[12]) };
}

/** The nice value of the calling thread. */
export function threadNiceness(): number {
  return threadStat('', readFileSync('/proc/thread-self/stat', 'utf8')).niceness;
}

/** Every thread of this process. */
export function processThreads(): ThreadStat[] {
  const out: ThreadStat[] = [];
  for (const t of readdirSync('/proc/self/task')) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/self/task/${t}/stat`, 'utf8');
    } catch {
      continue; // The thread ended since the directory was read.
    }
    out.push(threadStat(t, stat));
  }
  return out;
}
