/**
 * Updates start from the watch cache's copy of the live object (kube-apiserver's `cachedExistingObject`)
 * and fall back to storage when that copy is behind: every answer must be the one a fresh read gives.
 * The cache is frozen here by stopping its storage watch, then storage is moved ahead of it directly.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { resources } from '../../src/api/resources.js';
import { isConflict } from '../../src/api/errors.js';
import type { Client } from '../../src/client/client.js';
import { startTestApiServer, type TestApiServer } from '../harness/api-server.js';

const pod = (name: string): Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'pause' }] } });

describe('updates from a watch cache that is behind storage', () => {
  let srv: TestApiServer;
  let client: Client;
  let cachedRv = '';
  before(async () => {
    srv = await startTestApiServer();
    client = srv.inProcess();
    await client.create(resources.serviceaccounts, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'default' } });
    cachedRv = (await client.create<Pod>(resources.pods, pod('p'))).metadata?.resourceVersion ?? '';
    await client.create<Pod>(resources.pods, pod('q'));
    await srv.server.dispatcher.stop();
    // Storage moves on without the cache: p gets a label, q is bound to n9.
    for (const [name, change] of [
      ['p', (o: Pod): Pod => ({ ...o, metadata: { ...o.metadata, labels: { moved: 'on' } } })],
      ['q', (o: Pod): Pod => ({ ...o, spec: { ...(o.spec ?? { containers: [] }), nodeName: 'n9' } })],
    ] as const) {
      const key = `/registry/pods/default/${name}`;
      const kv = await srv.backend.get(key);
      assert.ok(kv !== undefined);
      const next = change(JSON.parse(Buffer.from(kv.value).toString('utf8')) as Pod);
      await srv.backend.update(key, Buffer.from(JSON.stringify(next)), kv.modRevision);
    }
  });
  after(async () => {
    await srv.stop();
  });

  test('a status patch applies to the object in storage', async () => {
    const out = await client.patch<Pod>(resources.pods, 'p', 'merge', { status: { phase: 'Running' } }, { namespace: 'default', subresource: 'status' });
    assert.deepEqual(out.metadata?.labels, { moved: 'on' });
    assert.equal(out.status?.phase, 'Running');
  });

  test('an update with the current resourceVersion succeeds; one with the cached, older one is a conflict', async () => {
    const cur = await client.patch<Pod>(resources.pods, 'p', 'merge', { metadata: { annotations: { a: '1' } } }, { namespace: 'default' });
    assert.deepEqual(cur.metadata?.labels, { moved: 'on' });
    const updated = await client.update<Pod>(resources.pods, { ...cur, metadata: { ...cur.metadata, annotations: { a: '2' } } }, { namespace: 'default' });
    assert.equal(updated.metadata?.annotations?.['a'], '2');
    await assert.rejects(
      client.update<Pod>(resources.pods, { ...cur, metadata: { ...cur.metadata, resourceVersion: cachedRv } }, { namespace: 'default' }),
      (e: unknown) => isConflict(e),
    );
  });

  test('a binding refused by the object in storage is refused, though the cached copy is unbound', async () => {
    await assert.rejects(
      client.createSubresource(resources.pods, 'q', 'binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'q', namespace: 'default' }, target: { kind: 'Node', name: 'n1' } }, { namespace: 'default' }),
      (e: unknown) => isConflict(e) && e instanceof Error && e.message === 'Operation cannot be fulfilled on pods/binding "q": pod q is already assigned to node "n9"',
    );
  });
});
