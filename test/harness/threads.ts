/**
 * The nice values of this process's threads, read from Linux's `/proc` (tests that check which thread runs
 * at which priority).
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Field 19 of a task's `stat` file, counted after the command name (which may hold spaces). */
function nicenessOfStat(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  return Number(fields[16]);
}

/** The nice value of the calling thread. */
export function threadNiceness(): number {
  return nicenessOfStat(readFileSync('/proc/thread-self/stat', 'utf8'));
}

/** The nice value of every thread of this process. */
export function processThreadNiceness(): number[] {
  const values: number[] = [];
  for (const t of readdirSync('/proc/self/task')) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/self/task/${t}/stat`, 'utf8');
    } catch {
      continue; // The thread ended since the directory was read.
    }
    values.push(nicenessOfStat(stat));
  }
  return values;
}
