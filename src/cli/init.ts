/**
 * `kubemix init`: the control plane of kubeadm's flow in the foreground (API server, controller manager,
 * scheduler, the control-plane node), printing like kubeadm the admin kubeconfig and a join command with a
 * fresh 24 h token and the CA hash. Runs until SIGINT/SIGTERM (exit 0).
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { mkdirSync } from 'node:fs';
import { ControlPlane } from '../bootstrap/control-plane.js';
import { parseDuration } from '../bootstrap/token.js';
import { parseCommandFlags, parseServeFlags, UsageError } from './_flags.js';
import { lockDataDir, DataDirInUse } from './_lock.js';

const help = `Run this command in order to set up the Kubernetes control plane.

Usage:
  kubemix init [flags]

Flags:
  --data-dir DIR               where the cluster lives (default ~/.kubemix/kubeadm)
  --port N                     API server port (default 6443; 0 picks a free port)
  --node-name NAME             the control-plane node's name (default control-plane)
  --advertise-address IP       the address the API server advertises (added to its certificate)
  --pod-network-cidr CIDR      the pod network (default 10.244.0.0/16)
  --service-cidr CIDR          the service network (default 10.96.0.0/12)
  --store sqlite|etcd          storage backend (default sqlite)
  --etcd-endpoints URLS        etcd client URLs, comma-separated (with --store etcd)
`;

/** Go-style durations for the hidden timing flags (tests shorten them). */
function ms(v: string | undefined, flag: string): number | undefined {
  if (v === undefined) return undefined;
  const d = parseDuration(v);
  if (d === undefined) throw new UsageError(`--${flag}: invalid duration "${v}"`);
  return d;
}

export async function runInit(args: string[]): Promise<number> {
  const flags = parseCommandFlags({ command: 'kubemix init', help, stderr: (t) => process.stderr.write(t) }, args, {
    'data-dir': { type: 'string' },
    port: { type: 'string' },
    'node-name': { type: 'string' },
    'advertise-address': { type: 'string' },
    'pod-network-cidr': { type: 'string' },
    'service-cidr': { type: 'string' },
    store: { type: 'string' },
    'etcd-endpoints': { type: 'string' },
    // Hidden: kube-controller-manager's and the kubelet's timings.
    'node-monitor-grace-period': { type: 'string' },
    'node-startup-grace-period': { type: 'string' },
    'lease-renew-interval': { type: 'string' },
    'node-status-update-frequency': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (flags === undefined) return 2;
  const v = flags.values;
  if (v.help === true) {
    process.stdout.write(help);
    return 0;
  }
  const serve = parseServeFlags('init', v);
  if ('error' in serve) {
    process.stderr.write(`${serve.error}\n`);
    return 2;
  }
  const { port, store } = serve;
  let timings;
  try {
    timings = {
      nodeMonitorGracePeriodMs: ms(v['node-monitor-grace-period'], 'node-monitor-grace-period'),
      nodeStartupGracePeriodMs: ms(v['node-startup-grace-period'], 'node-startup-grace-period'),
      leaseRenewIntervalMs: ms(v['lease-renew-interval'], 'lease-renew-interval'),
      nodeStatusUpdateFrequencyMs: ms(v['node-status-update-frequency'], 'node-status-update-frequency'),
    };
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`kubemix init: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  const dataDir = resolve(v['data-dir'] ?? join(homedir(), '.kubemix', 'kubeadm'));
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  let unlock: () => void;
  try {
    unlock = lockDataDir(dataDir);
  } catch (e) {
    if (e instanceof DataDirInUse) {
      process.stderr.write(`kubemix init: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
  const cp = new ControlPlane({
    dataDir,
    port,
    nodeName: v['node-name'] ?? 'control-plane',
    store,
    ...(v['advertise-address'] !== undefined ? { advertiseAddress: v['advertise-address'] } : {}),
    ...(v['pod-network-cidr'] !== undefined ? { podNetworkCIDR: v['pod-network-cidr'] } : {}),
    ...(v['service-cidr'] !== undefined ? { serviceCIDR: v['service-cidr'] } : {}),
    ...(timings.nodeMonitorGracePeriodMs !== undefined ? { nodeMonitorGracePeriodMs: timings.nodeMonitorGracePeriodMs } : {}),
    ...(timings.nodeStartupGracePeriodMs !== undefined ? { nodeStartupGracePeriodMs: timings.nodeStartupGracePeriodMs } : {}),
    ...(timings.leaseRenewIntervalMs !== undefined ? { leaseRenewIntervalMs: timings.leaseRenewIntervalMs } : {}),
    ...(timings.nodeStatusUpdateFrequencyMs !== undefined ? { nodeStatusUpdateFrequencyMs: timings.nodeStatusUpdateFrequencyMs } : {}),
  });
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      await cp.stop();
      unlock();
    })();
    return stopping;
  };
  let token: string;
  try {
    await cp.start();
    token = await cp.createToken();
  } catch (e) {
    await stop();
    throw e;
  }
  const url = cp.url();
  const hostPort = url.replace(/^https:\/\//, '');
  process.stdout.write(
    [
      `[init] API server: ${url}`,
      '',
      'Your Kubernetes control-plane has initialized successfully!',
      '',
      'To start using your cluster, you need to run the following as a regular user:',
      '',
      `  export KUBECONFIG=${cp.kubeconfigPath}`,
      '',
      'You should now deploy a pod network to the cluster.',
      'Run "kubectl apply -f [podnetwork].yaml" with one of the options listed at:',
      '  https://kubernetes.io/docs/concepts/cluster-administration/addons/',
      '',
      'Then you can join any number of worker nodes by running the following on each as root:',
      '',
      `kubemix join ${hostPort} --token ${token} \\`,
      `\t--discovery-token-ca-cert-hash ${cp.caCertHash()} `,
      '',
    ].join('\n'),
  );
  await new Promise<void>((resolveSignal) => {
    const onSignal = (): void => resolveSignal();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  });
  process.stdout.write('kubemix: stopping\n');
  await stop();
  return 0;
}
