import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeNode } from '../../_testing/wrappers.js';
import { Cache } from '../../cache/cache.js';
import { Snapshot } from '../../cache/snapshot.js';
import type { NodeInfo } from '../../framework/types.js';
import { TopologyValues } from './_topology-values.js';

const zone = 'topology.kubernetes.io/zone';

/** The value the slow path reads: the label, or undefined when the node does not have it. */
function labelOf(ni: NodeInfo): string | undefined {
  return Object.prototype.hasOwnProperty.call(ni.labels, zone) ? ni.labels[zone] : undefined;
}

function valueOf(tv: TopologyValues, ni: NodeInfo): string | undefined {
  const id = tv.idOf(ni);
  return id < 0 ? undefined : tv.valueOf(id);
}

void test('ids name the label values of snapshot nodes, stay put while the node object does, and follow node updates', () => {
  const cache = new Cache();
  const snapshot = new Snapshot();
  cache.addNode(makeNode('a').label(zone, 'z1').obj());
  cache.addNode(makeNode('b').label(zone, 'z2').obj());
  cache.addNode(makeNode('c').obj());
  cache.addNode(makeNode('d').label(zone, '').obj());
  cache.addNode(makeNode('e').label(zone, 'z1').obj());
  cache.updateSnapshot(snapshot);
  const tv = new TopologyValues(zone);
  for (let round = 0; round < 2; round++) {
    tv.beginCycle(snapshot.numNodes());
    for (const ni of snapshot.list()) assert.equal(valueOf(tv, ni), labelOf(ni), ni.name);
  }
  const a = snapshot.get('a');
  const e = snapshot.get('e');
  assert.ok(a !== undefined && e !== undefined);
  assert.equal(tv.idOf(a), tv.idOf(e), 'equal values, equal ids');
  assert.equal(tv.idOf(snapshot.get('c') as NodeInfo), -1);
  cache.updateNode(undefined, makeNode('a').label(zone, 'z3').obj());
  cache.updateNode(undefined, makeNode('c').label(zone, 'z2').obj());
  cache.updateNode(undefined, makeNode('b').obj());
  cache.updateSnapshot(snapshot);
  tv.beginCycle(snapshot.numNodes());
  for (const ni of snapshot.list()) assert.equal(valueOf(tv, ni), labelOf(ni), `${ni.name} after the update`);
  assert.equal(valueOf(tv, a), 'z3');
});

void test('a NodeInfo outside the snapshot is read from its labels and not remembered', () => {
  const snapshot = Snapshot.fromPodsAndNodes([], [makeNode('a').label(zone, 'z1').obj()]);
  const tv = new TopologyValues(zone);
  tv.beginCycle(1);
  const ni = snapshot.get('a') as NodeInfo;
  const copy = ni.snapshot();
  copy.labels = { [zone]: 'other' };
  assert.equal(valueOf(tv, copy), 'other');
  assert.equal(valueOf(tv, ni), 'z1');
});

void test('the dictionary starts over at a cycle start once node names churned past twice the node count', () => {
  const tv = new TopologyValues('kubernetes.io/hostname');
  tv.beginCycle(1);
  for (let i = 0; i < 1100; i++) tv.intern(`node-${i}`);
  tv.beginCycle(10);
  assert.equal(tv.intern('fresh'), 0);
  tv.beginCycle(10);
  assert.equal(tv.intern('fresh'), 0, 'a small dictionary is kept');
});
