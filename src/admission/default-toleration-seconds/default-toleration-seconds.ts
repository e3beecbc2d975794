/**
 * DefaultTolerationSeconds (`plugin/pkg/admission/defaulttolerationseconds`): on pod CREATE and UPDATE,
 * adds `node.kubernetes.io/not-ready` and `node.kubernetes.io/unreachable` NoExecute tolerations for 300 s
 * unless the pod already tolerates them (key equal or empty, effect NoExecute or empty; any operator).
 */
import type { Pod, Toleration } from 'kubernetes-types/core/v1.js';
import { apiErrors } from '../../api/errors.js';
import { isResource } from '../_errors.js';
import { names } from '../names.js';
import type { AdmissionAttributes, MutatingPlugin } from '../types.js';

export const name = names.DefaultTolerationSeconds;

export const taintNodeNotReady = 'node.kubernetes.io/not-ready';
export const taintNodeUnreachable = 'node.kubernetes.io/unreachable';

export interface DefaultTolerationSecondsOptions {
  /** `--default-not-ready-toleration-seconds` (300). */
  notReadyTolerationSeconds?: number;
  /** `--default-unreachable-toleration-seconds` (300). */
  unreachableTolerationSeconds?: number;
}

export class DefaultTolerationSeconds implements MutatingPlugin {
  readonly name = name;
  private readonly notReady: Toleration;
  private readonly unreachable: Toleration;

  constructor(opts: DefaultTolerationSecondsOptions = {}) {
    this.notReady = { key: taintNodeNotReady, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: opts.notReadyTolerationSeconds ?? 300 };
    this.unreachable = { key: taintNodeUnreachable, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: opts.unreachableTolerationSeconds ?? 300 };
  }

  /** `Handles`: CREATE and UPDATE only. */
  handles(op: AdmissionAttributes['operation']): boolean {
    return op === 'CREATE' || op === 'UPDATE';
  }

  async admit(a: AdmissionAttributes): Promise<void> {
    if (!this.handles(a.operation)) return;
    if (!isResource(a, '', 'pods') || a.subresource !== '') return;
    const pod = a.object as Pod | undefined;
    if (pod === undefined || pod.spec === undefined) throw apiErrors.badRequest(`expected *api.Pod but got ${typeof a.object}`);
    const tolerations = pod.spec.tolerations ?? [];
    let notReady = false;
    let unreachable = false;
    for (const t of tolerations) {
      const key = t.key ?? '';
      const noExecuteOrAll = t.effect === 'NoExecute' || (t.effect ?? '') === '';
      if ((key === taintNodeNotReady || key === '') && noExecuteOrAll) notReady = true;
      if ((key === taintNodeUnreachable || key === '') && noExecuteOrAll) unreachable = true;
    }
    if (notReady && unreachable) return;
    const out = [...tolerations];
    if (!notReady) out.push({ ...this.notReady });
    if (!unreachable) out.push({ ...this.unreachable });
    pod.spec.tolerations = out;
  }
}

export function create(opts: DefaultTolerationSecondsOptions = {}): DefaultTolerationSeconds {
  return new DefaultTolerationSeconds(opts);
}
