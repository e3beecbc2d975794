/**
 * The `kubemix.dev/simulate` annotation: how a simulated container behaves. On the pod, it applies to every
 * container; `kubemix.dev/simulate.<container>` applies to one container and wins. Comma-separated items:
 *
 * - `exit=N`: the process exits with code N (default 0) after `after` (default 5s);
 * - `after=DUR`: when it exits (`500ms`, `5s`, `2m`);
 * - `crash`: `exit=1,after=2s`;
 * - `run`: keeps running (also for Job pods, which otherwise complete after 3 s, and init containers, 1 s);
 * - `ready-after=DUR`: becomes ready DUR after starting (default: at once, or the readiness probe's
 *   `initialDelaySeconds`); `never-ready`: never passes its readiness probe;
 * - `ignore-sigterm`: ignores SIGTERM, so deletion waits the whole grace period and ends with SIGKILL (137).
 *
 * Examples: `kubemix.dev/simulate: exit=0,after=5s`, `kubemix.dev/simulate: crash`.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';

export const simulateAnnotation = 'kubemix.dev/simulate';

export interface SimulatedBehaviour {
  /** Exit after this long with `exitCode`; undefined: keep running. */
  exitAfterMs?: number;
  exitCode: number;
  readyAfterMs?: number;
  neverReady: boolean;
  ignoreSigterm: boolean;
}

/** Parses `500ms`, `5s`, `2m`, `1h`, `1m30s`; undefined when malformed. */
export function parseDurationMs(s: string): number | undefined {
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(s); m !== null; m = re.exec(s)) {
    const n = Number.parseFloat(m[1] ?? '0');
    const unit = m[2];
    total += unit === 'ms' ? n : unit === 's' ? n * 1000 : unit === 'm' ? n * 60_000 : n * 3_600_000;
    matched = re.lastIndex;
  }
  return matched === s.length && s.length > 0 ? Math.round(total) : undefined;
}

/** True for pods that run to completion by default: owned by a Job, or restartPolicy Never/OnFailure. */
export function runsToCompletion(pod: Pod): boolean {
  if ((pod.metadata?.ownerReferences ?? []).some((o) => o.kind === 'Job')) return true;
  const rp = pod.spec?.restartPolicy;
  return rp === 'Never' || rp === 'OnFailure';
}

/** Default run time of a pod that runs to completion without an annotation. */
export const defaultCompletionMs = 3000;

/** Default run time of an init container (not a sidecar) without an annotation. */
export const defaultInitContainerMs = 1000;

/**
 * The behaviour of container `name` of `pod`. `runToCompletion` marks containers that exit by default (init
 * containers that are not sidecars).
 */
export function behaviourOf(pod: Pod, name: string, runToCompletion = false): SimulatedBehaviour {
  const annotations = pod.metadata?.annotations ?? {};
  const spec = annotations[`${simulateAnnotation}.${name}`] ?? annotations[simulateAnnotation];
  const b: SimulatedBehaviour = { exitCode: 0, neverReady: false, ignoreSigterm: false };
  if (spec === undefined) {
    if (runToCompletion) b.exitAfterMs = defaultInitContainerMs;
    else if (runsToCompletion(pod)) b.exitAfterMs = defaultCompletionMs;
    return b;
  }
  let exitRequested = false;
  let keepRunning = false;
  for (const raw of spec.split(',')) {
    const item = raw.trim();
    const [key, value] = item.split('=', 2).map((s) => s.trim());
    switch (key) {
      case 'exit':
        exitRequested = true;
        b.exitCode = Number.parseInt(value ?? '0', 10) || 0;
        break;
      case 'after': {
        const d = parseDurationMs(value ?? '');
        if (d !== undefined) b.exitAfterMs = d;
        exitRequested = true;
        break;
      }
      case 'crash':
        exitRequested = true;
        b.exitCode = 1;
        b.exitAfterMs ??= 2000;
        break;
      case 'run':
        keepRunning = true;
        break;
      case 'ready-after': {
        const d = parseDurationMs(value ?? '');
        if (d !== undefined) b.readyAfterMs = d;
        break;
      }
      case 'never-ready':
        b.neverReady = true;
        break;
      case 'ignore-sigterm':
        b.ignoreSigterm = true;
        break;
      default:
        break;
    }
  }
  if (keepRunning) delete b.exitAfterMs;
  else if (exitRequested) b.exitAfterMs ??= 5000;
  else if (runToCompletion) b.exitAfterMs = defaultInitContainerMs;
  else if (runsToCompletion(pod)) b.exitAfterMs = defaultCompletionMs;
  return b;
}
