/**
 * A resourceVersion a patch sets is a precondition, as kube-apiserver's registry checks the updated object
 * (`kubectl label --resource-version`, `kubectl annotate --resource-version`).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { resources } from '../../src/api/resources.js';
import type { Client } from '../../src/client/client.js';
import { startTestApiServer, type TestApiServer } from '../harness/api-server.js';

describe('patches carrying a resourceVersion', () => {
  let srv: TestApiServer;
  let client: Client;
  before(async () => {
    srv = await startTestApiServer();
    client = srv.inProcess();
  });
  after(async () => {
    await srv.stop();
  });

  test('a stale one is a 409 Conflict; the current one applies', async () => {
    const cm = await client.create<ConfigMap>(resources.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' } });
    const first = cm.metadata?.resourceVersion ?? '';
    const changed = await client.patch<ConfigMap>(resources.configmaps, 'c', 'merge', { metadata: { labels: { a: '1' }, resourceVersion: first } }, { namespace: 'default' });
    assert.deepEqual(changed.metadata?.labels, { a: '1' });
    await assert.rejects(
      client.patch(resources.configmaps, 'c', 'merge', { metadata: { labels: { a: '2' }, resourceVersion: first } }, { namespace: 'default' }),
      (e: unknown) =>
        e instanceof Error &&
        (e as { code?: number }).code === 409 &&
        e.message === 'Operation cannot be fulfilled on configmaps "c": the object has been modified; please apply your changes to the latest version and try again',
    );
    const now = await client.get<ConfigMap>(resources.configmaps, 'c', { namespace: 'default' });
    assert.deepEqual(now.metadata?.labels, { a: '1' });
  });
});
