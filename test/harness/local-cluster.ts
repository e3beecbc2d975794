/**
 * A whole kubemix cluster for end-to-end tests: `LocalCluster` on a temporary data dir and a free port,
 * driven with the real kubectl and helm. `stop()` stops it and removes the directory.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalCluster, type LocalClusterOptions } from '../../src/local/local-cluster.js';
import { defaultCluster, type ClusterSpec } from '../../src/cluster/index.js';
import { spawn } from 'node:child_process';
import { ensureKubeTools, runHelm, runKubectl, type RunResult } from '../tools/kubectl-tools.js';

export interface TestCluster {
  cluster: LocalCluster;
  dataDir: string;
  kubeconfig: string;
  /** Runs kubectl; rejects unless it exits 0. */
  kubectl(args: string[], input?: string): Promise<string>;
  /** Runs kubectl and returns exit code and output whatever happens. */
  kubectlResult(args: string[], input?: string): Promise<RunResult>;
  helm(args: string[]): Promise<RunResult>;
  /** Runs kubectl for `ms` milliseconds (a watch), then kills it and returns what it printed. */
  kubectlFor(args: string[], ms: number, during?: () => Promise<void>): Promise<string>;
  /** Polls `fn` until it returns a value other than undefined (default 20 s). */
  eventually<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs?: number): Promise<T>;
  stop(): Promise<void>;
}

export async function startTestCluster(
  opts: { spec?: ClusterSpec } & Partial<Omit<LocalClusterOptions, 'spec' | 'dataDir' | 'port'>> = {},
): Promise<TestCluster> {
  const dataDir = await mkdtemp(join(tmpdir(), 'kubemix-e2e-'));
  const { spec, ...rest } = opts;
  // Pulls at 5 GB/s: the same outcomes as the default bandwidth, without waiting for multi-GB Windows images.
  const cluster = new LocalCluster({ spec: spec ?? defaultCluster(), dataDir, port: 0, pullBandwidthBytesPerSecond: 5e9, ...rest });
  await cluster.start();
  const kubeconfig = cluster.kubeconfigPath;
  const kubectlResult = (args: string[], input?: string): Promise<RunResult> =>
    runKubectl(args, { kubeconfig, ...(input !== undefined ? { input } : {}) });
  return {
    cluster,
    dataDir,
    kubeconfig,
    kubectlResult,
    kubectl: async (args, input) => {
      const r = await kubectlResult(args, input);
      if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
      return r.stdout;
    },
    helm: (args) => runHelm(args, { kubeconfig, timeoutMs: 120_000 }),
    kubectlFor: async (args, ms, during) => {
      const { kubectl } = await ensureKubeTools();
      const child = spawn(kubectl, args, { env: { ...process.env, KUBECONFIG: kubeconfig }, stdio: ['ignore', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      child.stdout.on('data', (b: Buffer) => out.push(b));
      const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
      await new Promise((r) => setTimeout(r, 500));
      await during?.();
      await new Promise((r) => setTimeout(r, ms));
      child.kill('SIGKILL');
      await closed;
      return Buffer.concat(out).toString();
    },
    eventually: async (what, fn, timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs;
      let lastError: unknown;
      for (;;) {
        try {
          const v = await fn();
          if (v !== undefined) return v;
        } catch (e) {
          lastError = e;
        }
        if (Date.now() > deadline) {
          throw new Error(`timed out waiting for ${what}${lastError instanceof Error ? `: ${lastError.message}` : ''}`);
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    stop: async () => {
      await cluster.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
