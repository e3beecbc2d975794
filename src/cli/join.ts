/**
 * `kubemix join HOST:PORT --token T --discovery-token-ca-cert-hash sha256:H --node-name NAME ...`: kubeadm
 * join's discovery and the kubelet's TLS bootstrap, then the node agent(s) in the foreground, each node
 * with its own client certificate. `--count K` joins NAME-1..K. Refusals (wrong CA hash, unknown or
 * expired token) exit 1 before anything is registered.
 */
import { HttpClient } from '../client/http-client.js';
import { NodeHost } from '../node/index.js';
import { discoverCluster, JoinError, tlsBootstrap } from '../bootstrap/join.js';
import { nodeSpecs } from '../bootstrap/node-spec.js';
import { parseDuration } from '../bootstrap/token.js';
import { isClusterConfigError } from '../cluster/index.js';
import { parseCommandFlags, UsageError } from './_flags.js';

const help = `Run this on any machine you wish to join an existing cluster.

Usage:
  kubemix join HOST:PORT [flags]

Flags:
  --token TOKEN                          the bootstrap token (<id>.<secret>)
  --discovery-token-ca-cert-hash HASH    sha256:<hex> of the cluster CA's public key (repeatable)
  --node-name NAME                       the node's name (with --count, the prefix of NAME-1..K)
  --os linux|windows                     default linux
  --arch amd64|arm64                     default amd64
  --windows-build 10.0.NNNNN             Windows Server build (with --os windows)
  --register-with-taints key=value:Effect,...
  --node-labels k=v,...
  --cpu N  --memory Q  --max-pods N      capacity
  --count K                              join K nodes from this process
`;

export async function runJoin(args: string[]): Promise<number> {
  const flags = parseCommandFlags({ command: 'kubemix join', help, stderr: (t) => process.stderr.write(t) }, 
    args,
    {
      token: { type: 'string' },
      'discovery-token-ca-cert-hash': { type: 'string', multiple: true },
      'node-name': { type: 'string' },
      os: { type: 'string' },
      arch: { type: 'string' },
      'windows-build': { type: 'string' },
      'register-with-taints': { type: 'string' },
      'node-labels': { type: 'string' },
      cpu: { type: 'string' },
      memory: { type: 'string' },
      'max-pods': { type: 'string' },
      count: { type: 'string' },
      // Hidden: the kubelet's timings (tests shorten them).
      'lease-renew-interval': { type: 'string' },
      'node-status-update-frequency': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    true,
  );
  if (flags === undefined) return 2;
  const v = flags.values;
  if (v.help === true) {
    process.stdout.write(help);
    return 0;
  }
  const endpoint = flags.positionals[0];
  if (endpoint === undefined || flags.positionals.length > 1) {
    process.stderr.write(`kubemix join: exactly one HOST:PORT is required\n\n${help}`);
    return 2;
  }
  if (v.token === undefined || v['node-name'] === undefined) {
    process.stderr.write(`kubemix join: --token and --node-name are required\n\n${help}`);
    return 2;
  }
  const count = v.count === undefined ? undefined : Number(v.count);
  if (count !== undefined && (!Number.isInteger(count) || count < 1)) {
    process.stderr.write(`kubemix join: --count: must be a positive integer, not "${v.count ?? ''}"\n`);
    return 2;
  }
  const num = (s: string | undefined, flag: string): number | undefined => {
    if (s === undefined) return undefined;
    const n = Number(s);
    if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--${flag}: invalid value "${s}"`);
    return n;
  };
  const leaseRenewIntervalMs = v['lease-renew-interval'] === undefined ? undefined : parseDuration(v['lease-renew-interval']);
  const nodeStatusUpdateFrequencyMs = v['node-status-update-frequency'] === undefined ? undefined : parseDuration(v['node-status-update-frequency']);
  if ((v['lease-renew-interval'] !== undefined && leaseRenewIntervalMs === undefined) || (v['node-status-update-frequency'] !== undefined && nodeStatusUpdateFrequencyMs === undefined)) {
    process.stderr.write('kubemix join: invalid duration\n');
    return 2;
  }
  const labels: Record<string, string> = {};
  for (const kv of (v['node-labels'] ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    const i = kv.indexOf('=');
    labels[i < 0 ? kv : kv.slice(0, i)] = i < 0 ? '' : kv.slice(i + 1);
  }
  const baseName = v['node-name'];
  const names = count === undefined ? [baseName] : Array.from({ length: count }, (_, i) => `${baseName}-${i + 1}`);
  let specs;
  try {
    const cpu = num(v.cpu, 'cpu');
    const maxPods = num(v['max-pods'], 'max-pods');
    specs = nodeSpecs(
      {
        names,
        ...(v.os !== undefined ? { os: v.os } : {}),
        ...(v.arch !== undefined ? { arch: v.arch } : {}),
        ...(v['windows-build'] !== undefined ? { windowsBuild: v['windows-build'] } : {}),
        ...(cpu !== undefined ? { cpu } : {}),
        ...(v.memory !== undefined ? { memory: v.memory } : {}),
        ...(maxPods !== undefined ? { maxPods } : {}),
        ...(Object.keys(labels).length > 0 ? { labels } : {}),
        ...(v['register-with-taints'] !== undefined ? { taints: v['register-with-taints'].split(',').map((s) => s.trim()).filter((s) => s !== '') } : {}),
      },
      names.join(','),
    );
  } catch (e) {
    if (e instanceof UsageError || isClusterConfigError(e)) {
      process.stderr.write(`kubemix join: invalid node flags:\n${e.message}\n`);
      return 2;
    }
    throw e;
  }
  const server = `https://${endpoint.replace(/^https:\/\//, '')}`;
  process.stdout.write('[preflight] Running pre-flight checks\n');
  let cluster;
  try {
    cluster = await discoverCluster({ server, token: v.token, caCertHashes: v['discovery-token-ca-cert-hash'] ?? [] });
  } catch (e) {
    if (e instanceof JoinError) {
      process.stderr.write(`error execution phase preflight: couldn't validate the identity of the API Server: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
  process.stdout.write('[kubelet-start] Waiting for the kubelet to perform the TLS Bootstrap\n');
  const hosts: NodeHost[] = [];
  const stopAll = (): void => {
    for (const h of hosts.reverse()) h.stop();
  };
  try {
    for (const spec of specs) {
      const { certPem, keyPem } = await tlsBootstrap({ cluster, token: v.token, nodeName: spec.name });
      const client = new HttpClient({ server: cluster.server, ca: cluster.caPem, cert: certPem, key: keyPem, userAgent: `kubelet/${spec.name}` });
      const host = new NodeHost({
        client,
        nodes: [spec],
        cni: 'daemonset',
        ...(leaseRenewIntervalMs !== undefined ? { leaseRenewIntervalMs } : {}),
        ...(nodeStatusUpdateFrequencyMs !== undefined ? { nodeStatusUpdateFrequencyMs } : {}),
      });
      hosts.push(host);
      await host.start();
    }
  } catch (e) {
    stopAll();
    if (e instanceof JoinError) {
      process.stderr.write(`error execution phase kubelet-start: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
  process.stdout.write(
    [
      '',
      `This node has joined the cluster${specs.length > 1 ? ` (${specs.map((s) => s.name).join(', ')})` : ''}:`,
      '* Certificate signing request was sent to apiserver and a response was received.',
      '* The Kubelet was informed of the new secure connection details.',
      '',
      "Run 'kubectl get nodes' on the control-plane to see this node join the cluster.",
      '',
    ].join('\n'),
  );
  await new Promise<void>((resolveSignal) => {
    const onSignal = (): void => resolveSignal();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  });
  stopAll();
  return 0;
}
