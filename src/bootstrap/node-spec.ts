/**
 * Node specs for `kubemix init` and `kubemix join`, built through the native cluster config so flags are
 * validated as config fields are (OS, arch, build, taints, labels, capacity).
 */
import { createHash } from 'node:crypto';
import { parseClusterConfig, type NodeSpec } from '../cluster/index.js';
import { internalIPForIndex, podCIDRForIndex } from '../cluster/expand.js';
import { expandCluster } from '../cluster/index.js';

export interface NodeFlags {
  names: string[];
  os?: string;
  arch?: string;
  windowsBuild?: string;
  controlPlane?: boolean;
  cpu?: number;
  memory?: string;
  maxPods?: number;
  labels?: Record<string, string>;
  /** `key=value:Effect` strings. */
  taints?: string[];
}

/**
 * One NodeSpec per name. `addressSeed` spreads each process's InternalIPs and pod CIDRs (derived from the
 * node's position in a config) so that nodes joined by different processes do not share them.
 */
export function nodeSpecs(f: NodeFlags, addressSeed?: string): NodeSpec[] {
  const group: Record<string, unknown> = {
    name: f.controlPlane === true ? 'control-plane' : 'nodes',
    count: f.names.length,
    names: f.names,
    os: f.os ?? 'linux',
    arch: f.arch ?? 'amd64',
    controlPlane: f.controlPlane === true,
  };
  if (f.windowsBuild !== undefined) group['windowsBuild'] = f.windowsBuild;
  if (f.cpu !== undefined) group['cpu'] = f.cpu;
  if (f.memory !== undefined) group['memory'] = f.memory;
  if (f.maxPods !== undefined) group['maxPods'] = f.maxPods;
  if (f.labels !== undefined) group['labels'] = f.labels;
  if (f.taints !== undefined) group['taints'] = f.taints;
  const doc = { apiVersion: 'kubemix.dev/v1alpha1', kind: 'Cluster', metadata: { name: 'kubemix' }, nodeGroups: [group] };
  const nodes = expandCluster(parseClusterConfig(JSON.stringify(doc), 'flags'));
  if (addressSeed === undefined) return nodes;
  const offset = 1 + (createHash('sha256').update(addressSeed).digest().readUInt32BE(0) % 8000) * 8;
  return nodes.map((n, i) => ({ ...n, internalIP: internalIPForIndex(offset + i), podCIDR: podCIDRForIndex(offset + i) }));
}
