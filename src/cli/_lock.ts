/**
 * One `kubemix up` per data dir: a lock file holding the owner's PID. A lock left by a process that no
 * longer runs is taken over.
 */
import { openSync, writeSync, closeSync, readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

export class DataDirInUse extends Error {}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock or throws DataDirInUse; returns the release function. */
export function lockDataDir(dataDir: string): () => void {
  const path = join(dataDir, 'kubemix.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => {
        try {
          unlinkSync(path);
        } catch {
          // already gone
        }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const pid = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
        throw new DataDirInUse(`data dir ${dataDir} is in use by another kubemix process (pid ${pid}); stop it first or choose another --data-dir`);
      }
      unlinkSync(path);
    }
  }
  throw new DataDirInUse(`could not lock data dir ${dataDir}`);
}
