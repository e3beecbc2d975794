/**
 * `nodeTree` (pkg/scheduler/backend/cache/node_tree.go): node names grouped by zone; `list()` interleaves
 * zones round-robin so the filter loop spreads its early feasible nodes across zones.
 */
import type { Node } from 'kubernetes-types/core/v1.js';

/** `utilnode.GetZoneKey`: region and zone (GA labels, then beta), or "" when neither is set. */
export function zoneKey(node: Node): string {
  const l = node.metadata?.labels ?? {};
  const region = l['topology.kubernetes.io/region'] ?? l['failure-domain.beta.kubernetes.io/region'] ?? '';
  const zone = l['topology.kubernetes.io/zone'] ?? l['failure-domain.beta.kubernetes.io/zone'] ?? '';
  if (region === '' && zone === '') return '';
  return `${region}:\u0000:${zone}`;
}

export class NodeTree {
  private readonly tree = new Map<string, string[]>();
  private readonly zones: string[] = [];
  numNodes = 0;

  addNode(node: Node): void {
    const z = zoneKey(node);
    const name = node.metadata?.name ?? '';
    let na = this.tree.get(z);
    if (na === undefined) {
      this.tree.set(z, (na = []));
      this.zones.push(z);
    } else if (na.includes(name)) {
      return;
    }
    na.push(name);
    this.numNodes++;
  }

  removeNode(node: Node): boolean {
    const z = zoneKey(node);
    const name = node.metadata?.name ?? '';
    const na = this.tree.get(z);
    if (na === undefined) return false;
    const i = na.indexOf(name);
    if (i < 0) return false;
    na.splice(i, 1);
    if (na.length === 0) {
      this.tree.delete(z);
      const zi = this.zones.indexOf(z);
      if (zi >= 0) this.zones.splice(zi, 1);
    }
    this.numNodes--;
    return true;
  }

  /** Moves the node when its zone changed; returns whether it did. */
  updateNode(oldNode: Node | undefined, newNode: Node): boolean {
    if (oldNode !== undefined && zoneKey(oldNode) === zoneKey(newNode)) return false;
    if (oldNode !== undefined) this.removeNode(oldNode);
    this.addNode(newNode);
    return true;
  }

  list(): string[] {
    const out: string[] = [];
    if (this.zones.length === 0) return out;
    let exhausted = 0;
    let idx = 0;
    while (out.length < this.numNodes) {
      if (exhausted >= this.zones.length) break;
      for (const z of this.zones) {
        const na = this.tree.get(z) ?? [];
        if (idx >= na.length) {
          if (idx === na.length) exhausted++;
          continue;
        }
        out.push(na[idx] as string);
      }
      idx++;
    }
    return out;
  }
}
