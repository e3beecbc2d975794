import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OpenApi } from './openapi/index.js';
import { ResourceTable } from './discovery/resource-defs.js';
import { patcher } from './wiring.js';
import type { StoredObject } from './storage/watch-cache.js';

const table = new ResourceTable();
const pods = table.get('', 'v1', 'pods');

function livePod(): StoredObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default', labels: { app: 'web' }, resourceVersion: '7' },
    spec: { containers: [{ name: 'app', image: 'nginx', ports: [{ containerPort: 80 }] }], nodeSelector: { 'kubernetes.io/os': 'linux' } },
    status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True' }] },
  };
}

/** Every object or array reached from `root`. */
function containers(root: unknown, into = new Set<object>()): Set<object> {
  if (root !== null && typeof root === 'object') {
    into.add(root);
    for (const v of Object.values(root)) containers(v, into);
  }
  return into;
}

// The store hands JSON and strategic merge patches the live object itself (no copy of its own), so the
// seam's promise is what keeps the live object, still read by validation and managed fields, intact.
test('the patcher leaves the live object unchanged, and JSON and strategic merge results share no part of it', () => {
  assert.ok(pods !== undefined);
  const p = patcher(new OpenApi());
  const cases: ['json' | 'merge' | 'strategic', unknown][] = [
    ['json', [{ op: 'replace', path: '/status/phase', value: 'Running' }]],
    ['strategic', { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } }],
    ['merge', { status: { phase: 'Running' } }],
  ];
  for (const [type, body] of cases) {
    const live = livePod();
    const out = p.patch(pods, live, type, body);
    assert.deepEqual(live, livePod(), type);
    assert.equal((out['status'] as { phase: string }).phase, 'Running', type);
    if (type === 'merge') continue;
    const shared = [...containers(out)].filter((o) => containers(live).has(o));
    assert.deepEqual(shared, [], `${type}: shares ${JSON.stringify(shared)}`);
  }
});
