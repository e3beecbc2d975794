/**
 * TaintNodesByCondition (`plugin/pkg/admission/nodetaint`): a Node is created with the
 * `node.kubernetes.io/not-ready:NoSchedule` taint, so no pod lands on it before the node lifecycle
 * controller has seen it Ready (the controller removes the taint).
 */
import type { Node } from 'kubernetes-types/core/v1.js';
import { isResource } from '../_errors.js';
import { names } from '../names.js';
import { matchTaint } from '../tolerations.js';
import type { AdmissionAttributes, MutatingPlugin } from '../types.js';

export const name = names.TaintNodesByCondition;

export class TaintNodesByCondition implements MutatingPlugin {
  readonly name = name;

  async admit(a: AdmissionAttributes): Promise<void> {
    if (a.operation !== 'CREATE' || !isResource(a, '', 'nodes') || a.subresource !== '') return;
    const node = a.object as Node | undefined;
    if (node === undefined) return;
    node.spec ??= {};
    const notReady = { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' };
    if ((node.spec.taints ?? []).some((t) => matchTaint(t, notReady))) return;
    node.spec.taints = [...(node.spec.taints ?? []), notReady];
  }
}

export function create(): TaintNodesByCondition {
  return new TaintNodesByCondition();
}
