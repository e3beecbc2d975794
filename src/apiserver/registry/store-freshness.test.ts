/**
 * Reads without a resourceVersion while the watch cache is behind storage, as kube-apiserver 1.32's cacher
 * answers them: a watch starts from the cache's current state at once (its "legacy case"), the changes
 * the cache has yet to apply following as events; a list is a consistent read, answered by the cache once
 * it has caught up with storage's current revision, or by storage when it has not within 3 s.
 */
import { describe, test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { openBackend } from '../../storage/index.js';
import type { Backend, Watch, WatchEvent } from '../../storage/backend.js';
import { ensurePki, type ClusterPki } from '../../bootstrap/pki.js';
import { createApiServer } from '../wiring.js';
import type { ApiServer } from '../server.js';
import { InProcessClient } from '../in-process-client.js';
import { resources } from '../../api/resources.js';
import type { WatchEvent as ClientWatchEvent, WatchStream } from '../../client/client.js';

const admin = { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] };
const namespace = 'default';

/**
 * Holds back the storage watch's events (the watch cache falls behind storage) until released, or ends
 * the storage watch with an error at its next event.
 */
class Gate {
  private held = false;
  private failure: Error | undefined;
  private readonly waiting: (() => void)[] = [];

  failAtNextEvent(err: Error): void {
    this.failure = err;
  }

  hold(): void {
    this.held = true;
  }

  release(): void {
    this.held = false;
    for (const wake of this.waiting.splice(0)) wake();
  }

  async pass(): Promise<void> {
    while (this.held) await new Promise<void>((resolve) => this.waiting.push(resolve));
    if (this.failure !== undefined) throw this.failure;
  }
}

/** `inner`, except that its watches deliver each event only once `gate` lets it pass. */
function behindBy(inner: Backend, gate: Gate): Backend {
  const watch = (prefix: string, afterRevision: number): Watch => {
    const w = inner.watch(prefix, afterRevision);
    return {
      close: () => w.close(),
      async *[Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
        for await (const ev of w) {
          await gate.pass();
          yield ev;
        }
      },
    };
  };
  return new Proxy(inner, {
    get(target, prop) {
      if (prop === 'watch') return watch;
      const v: unknown = Reflect.get(target, prop);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

const configMap = (name: string): ConfigMap & { metadata: object } => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { k: name } });

/** The stream's next event, or undefined when none comes within `ms`. */
async function nextWithin<T>(it: AsyncIterator<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  try {
    const r = await Promise.race([it.next(), timeout]);
    return r === undefined || r.done === true ? undefined : r.value;
  } finally {
    clearTimeout(timer);
  }
}

/** A server (SQLite) whose watch cache follows storage through `gate`, with the ConfigMap cache loaded. */
async function serverBehind(gate: Gate): Promise<{ server: ApiServer; client: InProcessClient; stop: () => Promise<void> }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'kubemix-freshness-'));
  const pki: ClusterPki = await ensurePki(dataDir);
  const backend: Backend = await openBackend({ kind: 'sqlite', dataDir, compaction: false });
  const server = createApiServer({ backend: behindBy(backend, gate), tls: { caPem: pki.ca.certPem, certPem: pki.apiserver.certPem, keyPem: pki.apiserver.keyPem }, port: 0 });
  await server.start();
  const client = new InProcessClient(server, { user: admin });
  await client.create(resources.configmaps, configMap('first'));
  await client.list(resources.configmaps, { namespace });
  return {
    server,
    client,
    stop: async () => {
      gate.release();
      await server.stop();
      await backend.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

describe('reads without a resourceVersion while the watch cache is behind storage', () => {
  let client: InProcessClient;
  let stop: () => Promise<void>;
  const gate = new Gate();
  const names = (items: readonly ConfigMap[]): string[] => items.map((c) => c.metadata?.name ?? '').sort();

  before(async () => {
    // The ConfigMap cache is loaded before anything is held back.
    ({ client, stop } = await serverBehind(gate));
  });
  afterEach(() => gate.release());
  after(async () => stop());

  test('a watch starts from the cache as it is, and what the cache has yet to apply follows as events', async () => {
    gate.hold();
    await client.create(resources.configmaps, configMap('unseen-by-watch'));
    const w: WatchStream<ConfigMap & { metadata: object }> = client.watch(resources.configmaps, { namespace });
    const it = w[Symbol.asyncIterator]();
    try {
      const initial: ClientWatchEvent<ConfigMap>[] = [];
      for (let e = await nextWithin(it, 500); e !== undefined; e = await nextWithin(it, 200)) initial.push(e);
      assert.ok(initial.length > 0, 'the current state arrives while the cache is behind');
      assert.deepEqual(
        initial.filter((e) => e.type === 'ADDED').map((e) => e.object.metadata?.name),
        initial.map((e) => e.object.metadata?.name),
      );
      assert.ok(!initial.some((e) => e.object.metadata?.name === 'unseen-by-watch'), 'the write the cache has not applied is not in the current state');
      gate.release();
      const later = await nextWithin(it, 5000);
      assert.equal(later?.type, 'ADDED');
      assert.equal(later?.object.metadata?.name, 'unseen-by-watch');
    } finally {
      w.close();
    }
  });

  test('a list is answered by storage at its current revision when the cache has not caught up within 3 s', async () => {
    gate.hold();
    const created = await client.create(resources.configmaps, configMap('unseen-by-cache'));
    const started = performance.now();
    const list = await client.list<ConfigMap & { metadata: object }>(resources.configmaps, { namespace });
    const waited = performance.now() - started;
    assert.ok(waited >= 2900, `waited ${Math.round(waited)} ms for the cache first`);
    assert.ok(names(list.items).includes('unseen-by-cache'));
    assert.equal(list.metadata?.resourceVersion, created.metadata?.resourceVersion);
    // The cache has not moved meanwhile: what answered was storage.
    const cached = await client.list<ConfigMap & { metadata: object }>(resources.configmaps, { namespace, resourceVersion: '0' });
    assert.ok(!names(cached.items).includes('unseen-by-cache'));
  });

  test('a list waits for the cache to catch up and is then answered by it', async () => {
    gate.hold();
    const created = await client.create(resources.configmaps, configMap('caught-up'));
    const listed = client.list<ConfigMap & { metadata: object }>(resources.configmaps, { namespace });
    setTimeout(() => gate.release(), 200);
    const list = await listed;
    assert.ok(names(list.items).includes('caught-up'));
    assert.ok(Number(list.metadata?.resourceVersion) >= Number(created.metadata?.resourceVersion));
  });
});

void test('a watch without a resourceVersion fails once the watch cache has stopped following storage', async () => {
  const gate = new Gate();
  const { server, client, stop } = await serverBehind(gate);
  try {
    gate.failAtNextEvent(new Error('storage watch broke'));
    await client.create(resources.configmaps, configMap('never-cached'));
    // The storage watch ends with the error at that write.
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline) {
      try {
        server.dispatcher.checkFollowing();
      } catch {
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const w = client.watch<ConfigMap & { metadata: object }>(resources.configmaps, { namespace });
    try {
      const first = await nextWithin(w[Symbol.asyncIterator](), 2000);
      assert.equal(first?.type, 'ERROR');
    } finally {
      w.close();
    }
  } finally {
    await stop();
  }
});
