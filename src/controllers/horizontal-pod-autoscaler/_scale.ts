/**
 * The HPA's scale target: from `scaleTargetRef` to the resources that may serve it (upstream's RESTMapper),
 * and the target's `scale` subresource read and written through the `Client`.
 */
import type { Scale } from 'kubernetes-types/autoscaling/v1.js';
import type { CustomResourceDefinition } from 'kubernetes-types/apiextensions/v1.js';
import { resources, type ResourceType } from '../../api/resources.js';
import type { Client, KubeObject } from '../../client/client.js';

/** `schema.ParseGroupVersion`: `""` and `"/"` are the empty version; more than one slash is an error. */
export function parseGroupVersion(gv: string): { group: string; version: string } {
  if (gv === '' || gv === '/') return { group: '', version: '' };
  const parts = gv.split('/');
  if (parts.length === 1) return { group: '', version: gv };
  if (parts.length === 2) return { group: parts[0] ?? '', version: parts[1] ?? '' };
  throw new Error(`unexpected GroupVersion string: ${gv}`);
}

/**
 * `RESTMapper.RESTMappings(groupKind)` as kube-controller-manager's deferred discovery mapper answers it:
 * every served version of the kind in the group, or `NoKindMatchError`. Built-in kinds come from the
 * resource table; a custom resource from its CustomResourceDefinition, looked up only when no built-in kind
 * matches (as the deferred mapper rediscovers on a miss), so an HPA of a built-in kind costs no request.
 */
export async function restMappings(client: Client, group: string, kind: string): Promise<ResourceType[]> {
  const builtIn = Object.values(resources).filter((r) => r.group === group && r.kind === kind);
  if (builtIn.length > 0) return builtIn;
  const crds = await client.list<CustomResourceDefinition>(resources.customresourcedefinitions);
  const mappings: ResourceType[] = [];
  for (const crd of crds.items) {
    const spec = crd.spec;
    if (spec.group !== group || spec.names.kind !== kind) continue;
    for (const v of spec.versions) {
      if (!v.served) continue;
      mappings.push({ group, version: v.name, resource: spec.names.plural, kind, namespaced: spec.scope === 'Namespaced' });
    }
  }
  if (mappings.length === 0) throw new Error(`no matches for kind "${kind}" in group "${group}"`);
  return mappings;
}

/** The parts of a Scale the controller reads. */
export interface ScaleView {
  specReplicas: number;
  statusReplicas: number;
  selector: string;
}

/**
 * `scaleNamespacer.Scales(ns).Get`: GET of the `scale` subresource. A resource without one is the API
 * server's 404, "the server could not find the requested resource".
 */
export async function getScale(client: Client, res: ResourceType, namespace: string, name: string): Promise<ScaleView> {
  const scale = await client.get<Scale & KubeObject>(res, name, { namespace, subresource: 'scale' });
  return { specReplicas: scale.spec?.replicas ?? 0, statusReplicas: scale.status?.replicas ?? 0, selector: scale.status?.selector ?? '' };
}

/**
 * `scaleNamespacer.Scales(ns).Update` of `spec.replicas`. Sent as a merge patch of the `scale`
 * subresource, which both clients serve (upstream PUTs the Scale it read; the patch skips that read's
 * resourceVersion precondition, so a concurrent change of the target is not reported as a conflict).
 */
export async function updateScale(client: Client, res: ResourceType, namespace: string, name: string, replicas: number): Promise<void> {
  await client.patch(res, name, 'merge', { spec: { replicas } }, { namespace, subresource: 'scale', answer: 'none' });
}
