import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { NodeAuthorizer } from './node-authorizer.js';
import type { AuthorizationAttributes } from '../authz.js';

const pods: Pod[] = [
  {
    metadata: { name: 'p1', namespace: 'ns' },
    spec: {
      nodeName: 'node0',
      serviceAccountName: 'sa1',
      imagePullSecrets: [{ name: 'pull' }],
      containers: [{ name: 'c', image: 'i', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 'env-secret', key: 'k' } } }], envFrom: [{ configMapRef: { name: 'env-cm' } }] }],
      volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'claim' } }, { name: 'proj', projected: { sources: [{ configMap: { name: 'kube-root-ca.crt' } }] } }],
    },
  },
];

const authz = new NodeAuthorizer({
  podsOnNode: async (n) => pods.filter((p) => p.spec?.nodeName === n),
  getPersistentVolumeClaim: async (ns, name) => (ns === 'ns' && name === 'claim' ? { metadata: { name }, spec: { volumeName: 'pv0' } } : undefined),
});

const node0 = { username: 'system:node:node0', groups: ['system:nodes', 'system:authenticated'] };
const node1 = { username: 'system:node:node1', groups: ['system:nodes', 'system:authenticated'] };

function a(user: AuthorizationAttributes['user'], verb: string, resource: string, namespace: string, name: string, extra: Partial<AuthorizationAttributes> = {}): AuthorizationAttributes {
  return { user, verb, resourceRequest: true, group: '', version: 'v1', resource, subresource: '', namespace, name, path: '', ...extra };
}

// Cases in the spirit of node_authorizer_test.go's TestAuthorizer.
const cases: { name: string; attrs: AuthorizationAttributes; expect: 'allow' | 'noOpinion'; reason?: string }[] = [
  { name: 'allowed configmap', attrs: a(node0, 'get', 'configmaps', 'ns', 'env-cm'), expect: 'allow' },
  { name: 'allowed projected configmap', attrs: a(node0, 'get', 'configmaps', 'ns', 'kube-root-ca.crt'), expect: 'allow' },
  { name: 'allowed secret via env', attrs: a(node0, 'get', 'secrets', 'ns', 'env-secret'), expect: 'allow' },
  { name: 'allowed secret via pull secret', attrs: a(node0, 'watch', 'secrets', 'ns', 'pull'), expect: 'allow' },
  { name: 'allowed pvc', attrs: a(node0, 'get', 'persistentvolumeclaims', 'ns', 'claim'), expect: 'allow' },
  { name: 'allowed pv', attrs: a(node0, 'get', 'persistentvolumes', '', 'pv0'), expect: 'allow' },
  { name: 'allowed token for its pod service account', attrs: a(node0, 'create', 'serviceaccounts', 'ns', 'sa1', { subresource: 'token' }), expect: 'allow' },
  { name: 'disallowed secret of another node', attrs: a(node1, 'get', 'secrets', 'ns', 'env-secret'), expect: 'noOpinion', reason: "no relationship found between node 'node1' and this object" },
  { name: 'disallowed list secrets without a name', attrs: a(node0, 'list', 'secrets', 'ns', ''), expect: 'noOpinion', reason: 'No Object name found' },
  { name: 'disallowed write secret', attrs: a(node0, 'update', 'secrets', 'ns', 'env-secret'), expect: 'noOpinion', reason: 'can only read resources of this type' },
  { name: 'disallowed cluster-scoped secret', attrs: a(node0, 'get', 'secrets', '', 'x'), expect: 'noOpinion', reason: 'can only read namespaced object of this type' },
  { name: 'disallowed list pvcs', attrs: a(node0, 'list', 'persistentvolumeclaims', 'ns', ''), expect: 'noOpinion', reason: 'can only get individual resources of this type' },
  { name: 'allowed own lease', attrs: a(node0, 'update', 'leases', 'kube-node-lease', 'node0', { group: 'coordination.k8s.io' }), expect: 'allow' },
  { name: "disallowed another node's lease", attrs: a(node0, 'update', 'leases', 'kube-node-lease', 'node1', { group: 'coordination.k8s.io' }), expect: 'noOpinion', reason: 'can only access node lease with the same name as the requesting node' },
  { name: 'disallowed lease in another namespace', attrs: a(node0, 'get', 'leases', 'ns', 'node0', { group: 'coordination.k8s.io' }), expect: 'noOpinion', reason: 'can only access leases in the "kube-node-lease" system namespace' },
  { name: 'allowed node status update by node rules', attrs: a(node0, 'patch', 'nodes', '', 'node0', { subresource: 'status' }), expect: 'allow' },
  { name: 'allowed list pods by node rules', attrs: a(node0, 'list', 'pods', '', ''), expect: 'allow' },
  { name: 'allowed create CSR by node rules', attrs: a(node0, 'create', 'certificatesigningrequests', '', '', { group: 'certificates.k8s.io' }), expect: 'allow' },
  { name: 'disallowed deployments', attrs: a(node0, 'list', 'deployments', 'ns', '', { group: 'apps' }), expect: 'noOpinion', reason: '' },
  { name: 'not a node', attrs: a({ username: 'alice', groups: [] }, 'get', 'secrets', 'ns', 'env-secret'), expect: 'noOpinion', reason: '' },
  { name: 'unknown node', attrs: a({ username: 'someone', groups: ['system:nodes'] }, 'get', 'secrets', 'ns', 'env-secret'), expect: 'noOpinion', reason: '' },
];

for (const tc of cases) {
  test(tc.name, async () => {
    const d = await authz.authorize(tc.attrs);
    assert.equal(d.decision, tc.expect);
    if (tc.reason !== undefined) assert.equal(d.reason, tc.reason);
  });
}
