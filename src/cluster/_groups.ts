/** Pieces both config formats share: control-plane marks, node names, and the cluster-wide name check. */
import { fieldErrors, type Path } from '../api/field-errors.js';
import type { ConfigReader } from './_validation.js';
import { isDNS1123Subdomain } from './_validation.js';
import type { NodeGroupSpec, TaintSpec } from './types.js';

/** kubeadm's control-plane role label and the label that keeps the node out of external load balancers. */
export const controlPlaneLabels: Readonly<Record<string, string>> = {
  'node-role.kubernetes.io/control-plane': '',
  'node.kubernetes.io/exclude-from-external-load-balancers': '',
};

/** kubeadm's control-plane taint (no value). */
export const controlPlaneTaint: TaintSpec = { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' };

/** The names of a group's nodes: its explicit `names`, else `<group>-1` .. `<group>-<count>`. */
export function nodeNamesOf(group: Pick<NodeGroupSpec, 'name' | 'count' | 'names' | 'nodeNamePrefix'>): string[] {
  if (group.names !== undefined) return [...group.names];
  const prefix = group.nodeNamePrefix ?? group.name;
  return Array.from({ length: group.count }, (_, i) => `${prefix}-${i + 1}`);
}

/** Node names must be DNS-1123 subdomains and unique across the cluster. */
export function checkNodeNames(
  reader: ConfigReader,
  groups: readonly { readonly spec: NodeGroupSpec; readonly path: Path }[],
): void {
  const seen = new Set<string>();
  for (const { spec, path } of groups) {
    nodeNamesOf(spec).forEach((name, i) => {
      const at = spec.names !== undefined ? path.child('names').index(i) : path.child('name');
      if (spec.names === undefined) {
        for (const msg of isDNS1123Subdomain(name)) reader.add(fieldErrors.invalid(at, name, msg));
      }
      if (seen.has(name)) reader.add(fieldErrors.duplicate(at, name));
      seen.add(name);
    });
  }
}
