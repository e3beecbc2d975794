import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Endpoints, Pod } from 'kubernetes-types/core/v1.js';
import { resources } from '../../api/resources.js';
import { FakeClient } from '../_testing/fake-client.js';
import { waitFor, startController } from '../_testing/fakes.js';
import { servedPod, service } from '../_testing/services.js';
import { computeSubsets, create } from './endpoints.js';

void test('computeSubsets', async (t) => {
  await t.test('ready pods in addresses, unready in notReadyAddresses, with nodeName and targetRef', () => {
    const svc = service('web', [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }]);
    const subsets = computeSubsets(svc, [servedPod('a', 'web', '10.0.0.2', { node: 'n1' }), servedPod('b', 'web', '10.0.0.1', { ready: false, node: 'n2' }), servedPod('c', 'other', '10.0.0.3')]);
    assert.deepEqual(subsets, [
      {
        addresses: [{ ip: '10.0.0.2', nodeName: 'n1', targetRef: { kind: 'Pod', namespace: 'default', name: 'a', uid: '' } }],
        notReadyAddresses: [{ ip: '10.0.0.1', nodeName: 'n2', targetRef: { kind: 'Pod', namespace: 'default', name: 'b', uid: '' } }],
        ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
      },
    ]);
  });
  await t.test('publishNotReadyAddresses lists unready pods as ready', () => {
    const svc = service('web', [{ port: 80, protocol: 'TCP' }], { publishNotReadyAddresses: true });
    const subsets = computeSubsets(svc, [servedPod('b', 'web', '10.0.0.1', { ready: false })]);
    assert.equal(subsets[0]?.addresses?.[0]?.ip, '10.0.0.1');
    assert.equal(subsets[0]?.notReadyAddresses, undefined);
    assert.deepEqual(subsets[0]?.ports, [{ port: 80, protocol: 'TCP' }]);
  });
  await t.test('named targetPort resolves per pod; pods without the port are left out of that port', () => {
    const svc = service('web', [{ name: 'http', port: 80, targetPort: 'web', protocol: 'TCP' }]);
    const subsets = computeSubsets(svc, [
      servedPod('a', 'web', '10.0.0.1', { ports: [{ name: 'web', containerPort: 8080 }] }),
      servedPod('b', 'web', '10.0.0.2', { ports: [{ name: 'web', containerPort: 9090 }] }),
      servedPod('c', 'web', '10.0.0.3'),
    ]);
    assert.deepEqual(
      subsets.map((s) => [s.addresses?.map((a) => a.ip), s.ports?.map((p) => p.port)]),
      [
        [['10.0.0.1'], [8080]],
        [['10.0.0.2'], [9090]],
      ],
    );
  });
  await t.test('hostname is set when the pod subdomain names the service', () => {
    const svc = service('db', [{ port: 5432, protocol: 'TCP' }], { clusterIP: 'None' });
    const subsets = computeSubsets(svc, [servedPod('db-0', 'db', '10.0.0.5', { hostname: 'db-0', subdomain: 'db' })]);
    assert.equal(subsets[0]?.addresses?.[0]?.hostname, 'db-0');
  });
  await t.test('pods without an IP, terminal or terminating pods are left out', () => {
    const svc = service('web', [{ port: 80, protocol: 'TCP' }]);
    const noIp = servedPod('a', 'web', '');
    const done = servedPod('b', 'web', '10.0.0.2');
    (done.status as { phase?: string }).phase = 'Succeeded';
    const terminating = servedPod('c', 'web', '10.0.0.3');
    (terminating.metadata as { deletionTimestamp?: string }).deletionTimestamp = '2025-01-01T00:00:00Z';
    assert.deepEqual(computeSubsets(svc, [noIp, done, terminating]), []);
  });
});

void test('the controller keeps Endpoints named like the Service in step with its pods', async (t) => {
  const client = new FakeClient();
  await startController(t, client, create);
  await client.create(resources.services, service('web', [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }]));
  await client.create(resources.pods, servedPod('a', 'web', '10.0.0.1', { node: 'n1' }));
  await waitFor(() => client.peek<Endpoints>(resources.endpoints, 'web', 'default')?.subsets?.[0]?.addresses?.length === 1);
  const ep = client.peek<Endpoints>(resources.endpoints, 'web', 'default');
  assert.deepEqual(ep?.metadata?.labels, { app: 'web' });
  assert.ok(ep?.metadata?.annotations?.['endpoints.kubernetes.io/last-change-trigger-time'] !== undefined);
  const pod = client.peek<Pod>(resources.pods, 'a', 'default') as Pod;
  await client.update(resources.pods, { ...pod, status: { ...pod.status, conditions: [{ type: 'Ready', status: 'False' }] } }, { subresource: 'status' });
  await waitFor(() => client.peek<Endpoints>(resources.endpoints, 'web', 'default')?.subsets?.[0]?.notReadyAddresses?.length === 1);
  await client.delete(resources.services, 'web', { namespace: 'default' });
  await waitFor(() => client.peek<Endpoints>(resources.endpoints, 'web', 'default') === undefined);
});
