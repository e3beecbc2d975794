/**
 * The cluster `kubemix up` starts without `--config` (spec/cli.md, "The default topology"), written as a
 * native config with explicit names: a tainted control plane, two Linux amd64 nodes, one Linux arm64 node,
 * and one Windows Server 2019 and one 2022 node, both tainted `os=windows:NoSchedule`.
 */
import { ConfigReader } from './_validation.js';
import { problemString } from './_validation.js';
import { type NativeClusterConfig, nativeApiVersion, nativeKind, readNativeConfig } from './native.js';
import type { ClusterSpec } from './types.js';

/** The default topology as a native config document (a fresh copy on every call). */
export function defaultClusterConfig(): NativeClusterConfig {
  const sizing = { cpu: 4, memory: '16Gi', maxPods: 110 };
  return {
    apiVersion: nativeApiVersion,
    kind: nativeKind,
    metadata: { name: 'kubemix' },
    nodeGroups: [
      { name: 'control-plane', names: ['control-plane'], os: 'linux', arch: 'amd64', controlPlane: true, ...sizing },
      { name: 'linux-amd64', names: ['linux-amd64-1', 'linux-amd64-2'], os: 'linux', arch: 'amd64', ...sizing },
      { name: 'linux-arm64', names: ['linux-arm64-1'], os: 'linux', arch: 'arm64', ...sizing },
      {
        name: 'windows-2019',
        names: ['windows-2019-1'],
        os: 'windows',
        arch: 'amd64',
        windowsBuild: '10.0.17763',
        taints: ['os=windows:NoSchedule'],
        ...sizing,
      },
      {
        name: 'windows-2022',
        names: ['windows-2022-1'],
        os: 'windows',
        arch: 'amd64',
        windowsBuild: '10.0.20348',
        taints: ['os=windows:NoSchedule'],
        ...sizing,
      },
    ],
  };
}

/** The default topology, normalized. */
export function defaultCluster(): ClusterSpec {
  const reader = new ConfigReader();
  const spec = readNativeConfig(defaultClusterConfig() as unknown as Record<string, unknown>, reader);
  if (spec === undefined) throw new Error(`default topology is invalid: ${reader.problems.map(problemString).join('; ')}`);
  return spec;
}
