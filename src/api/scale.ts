/**
 * The `scale` subresource's view of a workload object (`scaleFromDeployment`, `scaleFromReplicaSet`,
 * `scaleFromStatefulSet`, `scaleFromRC` in pkg/registry): an autoscaling/v1 Scale with the object's
 * identity, `spec.replicas`, `status.replicas` and the selector in string form (a ReplicationController's
 * selector is a plain label map), in the shape `kubernetes-types`' `Scale` describes.
 */
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { labelSelectorAsSelector, selectorFromSet, SelectorParseError, type Labels } from './labels.js';

export function scaleOf(resource: { group: string; resource: string }, obj: { metadata?: ObjectMeta; spec?: unknown; status?: unknown }): Record<string, unknown> {
  const md = obj.metadata ?? {};
  const spec = (obj.spec ?? {}) as { replicas?: number; selector?: unknown };
  const status = (obj.status ?? {}) as { replicas?: number };
  let selector = '';
  try {
    const isRc = resource.group === '' && resource.resource === 'replicationcontrollers';
    selector = (isRc ? selectorFromSet(spec.selector as Labels) : labelSelectorAsSelector(spec.selector as Parameters<typeof labelSelectorAsSelector>[0])).toString();
  } catch (e) {
    if (!(e instanceof SelectorParseError)) throw e;
  }
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name: md.name, namespace: md.namespace, uid: md.uid, resourceVersion: md.resourceVersion, creationTimestamp: md.creationTimestamp },
    spec: { replicas: spec.replicas ?? 0 },
    status: { replicas: status.replicas ?? 0, selector },
  };
}
