/**
 * The resources a 1.32 server answers without storing them: TokenReviews (authentication.k8s.io/v1) and
 * ComponentStatuses (v1), through the in-process client and over HTTPS.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ResourceType } from '../../src/api/resources.js';
import { ApiError } from '../../src/api/errors.js';
import type { KubeObject } from '../../src/client/client.js';
import { startTestApiServer } from '../harness/api-server.js';

const tokenReviews: ResourceType = { group: 'authentication.k8s.io', version: 'v1', resource: 'tokenreviews', kind: 'TokenReview', namespaced: false };
const componentStatuses: ResourceType = { group: '', version: 'v1', resource: 'componentstatuses', kind: 'ComponentStatus', namespaced: false };

type Review = KubeObject & { spec?: { token?: string; audiences?: string[] }; status?: Record<string, unknown> };

void test('a TokenReview answers who a token is, with the audiences asked for or the API audience', async (t) => {
  const srv = await startTestApiServer({ staticTokens: new Map([['alice-token', { username: 'alice', uid: '42', groups: ['devs'] }]]) });
  t.after(() => srv.stop());
  for (const c of [srv.inProcess(), srv.http()]) {
    const review = (spec: NonNullable<Review['spec']>): Promise<Review> => c.create<Review>(tokenReviews, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec });
    const known = await review({ token: 'alice-token' });
    assert.deepEqual(known.status, {
      authenticated: true,
      user: { username: 'alice', uid: '42', groups: ['devs', 'system:authenticated'] },
      audiences: ['https://kubernetes.default.svc.cluster.local'],
    });
    assert.deepEqual((await review({ token: 'alice-token', audiences: ['vault'] })).status?.['audiences'], ['vault']);
    assert.deepEqual((await review({ token: 'nope' })).status, { user: {}, error: 'invalid bearer token' });
    await assert.rejects(review({}), (e: unknown) => e instanceof ApiError && e.code === 400 && e.message === 'token is required for TokenReview in authentication');
  }
});

void test('componentstatuses: the storage is healthy; components nobody runs read as unreachable', async (t) => {
  const srv = await startTestApiServer();
  t.after(() => srv.stop());
  for (const c of [srv.inProcess(), srv.http()]) {
    const list = await c.list<KubeObject & { conditions?: unknown[] }>(componentStatuses);
    assert.deepEqual(
      list.items.map((s) => [s.metadata?.name, s.conditions]),
      [
        ['scheduler', [{ type: 'Healthy', status: 'False', message: 'Get "https://127.0.0.1:10259/healthz": dial tcp 127.0.0.1:10259: connect: connection refused' }]],
        ['controller-manager', [{ type: 'Healthy', status: 'False', message: 'Get "https://127.0.0.1:10257/healthz": dial tcp 127.0.0.1:10257: connect: connection refused' }]],
        ['etcd-0', [{ type: 'Healthy', status: 'True', message: 'ok' }]],
      ],
    );
    await assert.rejects(c.get(componentStatuses, 'nope'), (e: unknown) => e instanceof ApiError && e.code === 500 && e.message === 'Component not found: nope');
  }
  srv.server.componentStatuses.setProbe('scheduler', () => true);
  const scheduler = await srv.http().get<KubeObject & { conditions?: unknown[] }>(componentStatuses, 'scheduler');
  assert.deepEqual(scheduler.conditions, [{ type: 'Healthy', status: 'True', message: 'ok' }]);
});
