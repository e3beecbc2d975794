/**
 * Starts a private single-member etcd for tests and benchmarks: Debian's `/usr/bin/etcd` on 127.0.0.1 with
 * free client and peer ports and a temporary data directory. When the binary is missing this throws (the
 * etcd tests must fail, not skip: CI installs the `etcd-server` package).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const etcdBinary = '/usr/bin/etcd';

export interface TestEtcd {
  readonly endpoints: string[];
  readonly dataDir: string;
  /** Stops etcd and removes its data directory. Idempotent. */
  stop(): Promise<void>;
  /** Stops etcd and starts it again on the same ports and data directory. */
  restart(): Promise<void>;
  /** Kills etcd with SIGKILL (keeping its data) and starts it again. */
  crash(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Resolves when etcd answers its health endpoint. */
async function waitHealthy(clientUrl: string, proc: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      throw new Error(`etcd exited during startup (${proc.exitCode ?? proc.signalCode}):\n${log()}`);
    }
    try {
      const res = await fetch(`${clientUrl}/health`);
      const body = await res.text();
      if (res.ok && body.includes('"health":"true"')) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`etcd did not become healthy within 20s:\n${log()}`);
}

async function stopProcess(proc: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  proc.kill(signal);
  const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

export async function startTestEtcd(): Promise<TestEtcd> {
  if (!existsSync(etcdBinary)) {
    throw new Error(
      `${etcdBinary} not found: the etcd storage tests need Debian's etcd (apt-get install etcd-server)`,
    );
  }
  const dataDir = await mkdtemp(join(tmpdir(), 'kubemix-etcd-'));
  const clientPort = await freePort();
  let peerPort = await freePort();
  while (peerPort === clientPort) peerPort = await freePort();
  const clientUrl = `http://127.0.0.1:${clientPort}`;
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  const args = [
    '--name',
    'kubemix-test',
    '--data-dir',
    join(dataDir, 'data'),
    '--listen-client-urls',
    clientUrl,
    '--advertise-client-urls',
    clientUrl,
    '--listen-peer-urls',
    peerUrl,
    '--initial-advertise-peer-urls',
    peerUrl,
    '--initial-cluster',
    `kubemix-test=${peerUrl}`,
    '--initial-cluster-state',
    'new',
    '--log-level',
    'error',
    // etcd's default 2 GiB quota fills at the benchmark's full size (150,000 pods and their events): writes
    // then fail with "mvcc: database space exceeded". 8 GiB is etcd's suggested maximum, what large clusters run.
    '--quota-backend-bytes',
    String(8 * 1024 ** 3),
  ];
  let proc: ChildProcess | undefined;
  let output = '';
  let stopped = false;
  // If the test process dies without calling stop(), do not leave etcd running.
  const killOnExit = (): void => {
    proc?.kill('SIGKILL');
  };
  process.once('exit', killOnExit);

  const launch = async (): Promise<void> => {
    output = '';
    const child = spawn(etcdBinary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    proc = child;
    const collect = (chunk: Buffer): void => {
      output = (output + chunk.toString()).slice(-8000);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    const spawnFailed = new Promise<never>((_, reject) => child.once('error', reject));
    try {
      await Promise.race([waitHealthy(clientUrl, child, () => output), spawnFailed]);
    } catch (err) {
      await stopProcess(child, 'SIGKILL');
      throw err;
    }
  };

  try {
    await launch();
  } catch (err) {
    process.removeListener('exit', killOnExit);
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  }

  return {
    endpoints: [clientUrl],
    dataDir,
    async stop() {
      if (stopped) return;
      stopped = true;
      if (proc !== undefined) await stopProcess(proc, 'SIGTERM');
      process.removeListener('exit', killOnExit);
      await rm(dataDir, { recursive: true, force: true });
    },
    async restart() {
      if (proc !== undefined) await stopProcess(proc, 'SIGTERM');
      await launch();
    },
    async crash() {
      if (proc !== undefined) await stopProcess(proc, 'SIGKILL');
      await launch();
    },
  };
}
