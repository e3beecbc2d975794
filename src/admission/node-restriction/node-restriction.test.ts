import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { resources } from '../../api/resources.js';
import { attrs, fakeLookup } from '../_testing.js';
import { create, nodeIdentity } from './node-restriction.js';

const node1 = { username: 'system:node:node1', groups: ['system:nodes', 'system:authenticated'] };
const mirror = (nodeName: string, extra: Partial<NonNullable<Pod['spec']>> = {}): Pod => ({
  metadata: { name: `static-${nodeName}`, namespace: 'kube-system', annotations: { 'kubernetes.io/config.mirror': 'hash' } },
  spec: { nodeName, containers: [{ name: 'c', image: 'i' }], ...extra },
});
const bound = (nodeName: string): Pod => ({ metadata: { name: 'p', namespace: 'ns' }, spec: { nodeName, containers: [] } });
const lookup = fakeLookup({ pods: [{ ...bound('node2'), metadata: { name: 'other', namespace: 'ns' } }, { ...bound('node1'), metadata: { name: 'mine', namespace: 'ns' } }], nodes: [{ metadata: { name: 'node1', uid: 'uid-1' } }] });

test('node identity requires the prefix and the system:nodes group', () => {
  assert.deepEqual(nodeIdentity(node1), { nodeName: 'node1', isNode: true });
  assert.deepEqual(nodeIdentity({ username: 'system:node:node1', groups: [] }), { nodeName: '', isNode: false });
  assert.deepEqual(nodeIdentity({ username: 'admin', groups: ['system:nodes'] }), { nodeName: '', isNode: false });
});

test('non-node users are not restricted', async () => {
  await create().admit(attrs(bound('node2'), { operation: 'UPDATE' }), lookup);
});

test('a node can create mirror pods bound to itself only', async () => {
  const p = create();
  await p.admit(attrs(mirror('node1'), { userInfo: node1 }), lookup);
  await assert.rejects(p.admit(attrs(bound('node1'), { userInfo: node1 }), lookup), {
    message: 'pods "p" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "node1" can only create mirror pods',
  });
  await assert.rejects(p.admit(attrs(mirror('node2'), { userInfo: node1 }), lookup), {
    message: 'pods "static-node2" is forbidden: node "node1" can only create pods with spec.nodeName set to itself',
  });
  await assert.rejects(p.admit(attrs(mirror('node1', { serviceAccountName: 'sa' }), { userInfo: node1 }), lookup), {
    message: 'pods "static-node1" is forbidden: node "node1" can not create pods that reference a service account',
  });
  await assert.rejects(p.admit(attrs(mirror('node1', { volumes: [{ name: 'c', configMap: { name: 'x' } }] }), { userInfo: node1 }), lookup), {
    message: 'pods "static-node1" is forbidden: node "node1" can not create pods that reference configmaps',
  });
});

test('mirror pod owner reference must be the node itself, with its UID', async () => {
  const p = create();
  const ok = mirror('node1');
  ok.metadata = { ...ok.metadata, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'node1', uid: 'uid-1', controller: true }] };
  await p.admit(attrs(ok, { userInfo: node1 }), lookup);
  const wrong = mirror('node1');
  wrong.metadata = { ...wrong.metadata, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'node1', uid: 'other', controller: true }] };
  await assert.rejects(p.admit(attrs(wrong, { userInfo: node1 }), lookup), { message: 'pods "static-node1" is forbidden: node node1 UID mismatch: expected other got uid-1' });
});

test('a node can delete and evict only pods bound to itself, and update only their status', async () => {
  const p = create();
  await p.admit(attrs(undefined, { operation: 'DELETE', namespace: 'ns', name: 'mine', userInfo: node1 }), lookup);
  await assert.rejects(p.admit(attrs(undefined, { operation: 'DELETE', namespace: 'ns', name: 'other', userInfo: node1 }), lookup), {
    message: 'pods "other" is forbidden: node "node1" can only delete pods with spec.nodeName set to itself',
  });
  await assert.rejects(p.admit(attrs(bound('node1'), { operation: 'UPDATE', userInfo: node1 }), lookup), {
    message: 'pods "p" is forbidden: unexpected operation "UPDATE", node "node1" can only create and delete mirror pods',
  });
  await p.admit(attrs(bound('node1'), { operation: 'UPDATE', subresource: 'status', oldObject: bound('node1'), userInfo: node1 }), lookup);
  await assert.rejects(p.admit(attrs(bound('node2'), { operation: 'UPDATE', subresource: 'status', oldObject: bound('node2'), userInfo: node1 }), lookup), {
    message: 'pods "p" is forbidden: node "node1" can only update pod status for pods with spec.nodeName set to itself',
  });
  await assert.rejects(p.admit(attrs({ metadata: { name: 'other' } }, { operation: 'CREATE', subresource: 'eviction', namespace: 'ns', name: 'other', userInfo: node1 }), lookup), {
    message: 'pods "other" is forbidden: node node1 can only evict pods with spec.nodeName set to itself',
  });
  await assert.rejects(p.admit(attrs(bound('node1'), { operation: 'UPDATE', subresource: 'binding', userInfo: node1 }), lookup), {
    message: `pods "p" is forbidden: unexpected pod subresource "binding", only 'status' and 'eviction' are allowed`,
  });
});

test('a node may only modify its own Node, not its taints, and only kubelet labels', async () => {
  const p = create();
  const n = (name: string, labels: Record<string, string> = {}, taints: Node['spec'] = {}): Node => ({ metadata: { name, labels }, spec: taints });
  await p.admit(attrs(n('node1', { 'kubernetes.io/os': 'windows', 'node.kubernetes.io/windows-build': '10.0.17763' }), { resource: resources.nodes, userInfo: node1 }), lookup);
  await assert.rejects(p.admit(attrs(n('node2'), { resource: resources.nodes, userInfo: node1 }), lookup), { message: 'nodes "node2" is forbidden: node "node1" is not allowed to modify node "node2"' });
  await assert.rejects(p.admit(attrs(n('node1', { 'node-role.kubernetes.io/control-plane': '' }), { resource: resources.nodes, userInfo: node1 }), lookup), {
    message: 'nodes "node1" is forbidden: node "node1" is not allowed to set the following labels: node-role.kubernetes.io/control-plane',
  });
  const old = n('node1', {}, { taints: [{ key: 'a', effect: 'NoSchedule' }] });
  await assert.rejects(p.admit(attrs(n('node1'), { operation: 'UPDATE', resource: resources.nodes, oldObject: old, userInfo: node1 }), lookup), {
    message: 'nodes "node1" is forbidden: node "node1" is not allowed to modify taints',
  });
  await assert.rejects(p.admit(attrs(n('node1', { 'node-restriction.kubernetes.io/x': 'y' }, { taints: [{ key: 'a', effect: 'NoSchedule' }] }), { operation: 'UPDATE', resource: resources.nodes, oldObject: old, userInfo: node1 }), lookup), {
    message: 'nodes "node1" is forbidden: is not allowed to modify labels: node-restriction.kubernetes.io/x',
  });
  await p.admit(attrs(n('node1', { 'example.com/custom': 'ok' }, { taints: [{ key: 'a', effect: 'NoSchedule' }] }), { operation: 'UPDATE', subresource: 'status', resource: resources.nodes, oldObject: old, userInfo: node1 }), lookup);
});

test('a node may only touch its own Lease in kube-node-lease', async () => {
  const p = create();
  const lease = (name: string, ns: string): Lease => ({ metadata: { name, namespace: ns } });
  await p.admit(attrs(lease('node1', 'kube-node-lease'), { resource: resources.leases, userInfo: node1 }), lookup);
  await assert.rejects(p.admit(attrs(lease('node2', 'kube-node-lease'), { resource: resources.leases, userInfo: node1 }), lookup), {
    message: 'leases.coordination.k8s.io "node2" is forbidden: can only access node lease with the same name as the requesting node',
  });
  await assert.rejects(p.admit(attrs(lease('node1', 'default'), { resource: resources.leases, userInfo: node1 }), lookup), {
    message: 'leases.coordination.k8s.io "node1" is forbidden: can only access leases in the "kube-node-lease" system namespace',
  });
});
