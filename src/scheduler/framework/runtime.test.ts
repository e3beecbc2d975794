import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { makeNode, makePod, seededRandom } from '../_testing/wrappers.js';
import { Cache } from '../cache/cache.js';
import { newInTreeRegistry } from '../plugins/registry.js';
import { SchedulingAlgorithm } from '../schedule-one.js';
import type { CycleState } from './cycle-state.js';
import type { FilterPlugin, PreFilterPlugin, PreFilterResult } from './interfaces.js';
import { defaultProfile } from './profile.js';
import { Registry } from './registry.js';
import { Framework } from './runtime.js';
import { Code, Status, newStatus } from './status.js';
import type { NodeInfo } from './types.js';

/** A PreFilter plugin answering a fixed result (schedule_one_test.go's fake prefilter plugins). */
function fakePreFilter(name: string, answer: { status: Status; result?: PreFilterResult }): PreFilterPlugin {
  return { name, preFilter: (_s: CycleState, _p: Pod) => answer };
}

function fakeFilter(name: string, fn: (ni: NodeInfo) => Status): FilterPlugin {
  return { name, filter: (_s: CycleState, _p: Pod, ni: NodeInfo) => fn(ni) };
}

function run(plugins: { name: string; create: () => FilterPlugin | PreFilterPlugin }[], nodeNames: string[]): { message: string; code: Code; host?: string } {
  const registry = newInTreeRegistry().merge(new Registry(Object.fromEntries(plugins.map((p) => [p.name, () => p.create()]))));
  const fwk = new Framework({
    registry,
    profile: { schedulerName: 'test', plugins: [{ name: 'PrioritySort' }, ...plugins.map((p) => ({ name: p.name })), { name: 'DefaultBinder' }] },
    random: seededRandom(1),
  });
  const cache = new Cache();
  for (const n of nodeNames) cache.addNode(makeNode(n).obj());
  const algo = new SchedulingAlgorithm({ cache, random: seededRandom(1) });
  const out = algo.schedulingCycle(fwk, makePod('p').obj());
  if (out.kind === 'assumed') return { message: '', code: Code.Success, host: out.nodeName };
  return { message: out.status.message(), code: out.status.code };
}

// schedule_one_test.go TestSchedulerSchedulePod (framework behaviour subset).
void test('test prefilter plugin returning Unschedulable status', () => {
  const r = run([{ name: 'FakePreFilter', create: () => fakePreFilter('FakePreFilter', { status: newStatus(Code.UnschedulableAndUnresolvable, 'injected unschedulable status') }) }], ['1', '2']);
  assert.equal(r.code, Code.Unschedulable);
  assert.equal(r.message, '0/2 nodes are available: injected unschedulable status.');
});

void test('test prefilter plugin returning error status', () => {
  const r = run([{ name: 'FakePreFilter', create: () => fakePreFilter('FakePreFilter', { status: newStatus(Code.Error, 'injected error status') }) }], ['1', '2']);
  assert.equal(r.code, Code.Error);
  assert.equal(r.message, 'running PreFilter plugin "FakePreFilter": injected error status');
});

void test('test prefilter plugin returning node', () => {
  const r = run(
    [
      { name: 'FakePreFilter', create: () => fakePreFilter('FakePreFilter', { status: Status.success(), result: { nodeNames: new Set(['2']) } }) },
    ],
    ['1', '2', '3'],
  );
  assert.equal(r.host, '2');
});

void test('test prefilter plugins returning non-intersecting nodes', () => {
  const r = run(
    [
      { name: 'FakePreFilter2', create: () => fakePreFilter('FakePreFilter2', { status: Status.success(), result: { nodeNames: new Set(['node1', 'node2']) } }) },
      { name: 'FakePreFilter3', create: () => fakePreFilter('FakePreFilter3', { status: Status.success(), result: { nodeNames: new Set(['node3']) } }) },
    ],
    ['node1', 'node2', 'node3'],
  );
  assert.equal(r.message, "0/3 nodes are available: node(s) didn't satisfy plugin(s) [FakePreFilter2 FakePreFilter3] simultaneously.");
});

void test('test prefilter plugin returned an invalid node', () => {
  const r = run([{ name: 'FakePreFilter', create: () => fakePreFilter('FakePreFilter', { status: Status.success(), result: { nodeNames: new Set(['invalid-node']) } }) }], ['1', '2']);
  assert.equal(r.message, "0/2 nodes are available: 2 node(s) didn't satisfy plugin(s) [FakePreFilter].");
});

void test('test with filter plugin returning Unschedulable status', () => {
  const r = run([{ name: 'FakeFilter', create: () => fakeFilter('FakeFilter', () => newStatus(Code.Unschedulable, 'injected filter status')) }], ['3']);
  assert.equal(r.message, '0/1 nodes are available: 1 injected filter status.');
});

void test('test with filter plugin returning UnschedulableAndUnresolvable status on one node', () => {
  const r = run([{ name: 'FakeFilter', create: () => fakeFilter('FakeFilter', (ni) => (ni.name === '3' ? newStatus(Code.UnschedulableAndUnresolvable, 'injected filter status') : Status.success())) }], ['1', '2', '3']);
  assert.ok(r.host === '1' || r.host === '2');
});

void test('test with filter plugin returning an error', () => {
  const r = run([{ name: 'FakeFilter', create: () => fakeFilter('FakeFilter', () => newStatus(Code.Error, 'injected error')) }], ['1']);
  assert.equal(r.code, Code.Error);
  assert.equal(r.message, 'running "FakeFilter" filter plugin: injected error');
});

void test('a profile naming a plugin twice or an unknown plugin is rejected', () => {
  assert.throws(() => new Framework({ registry: newInTreeRegistry(), profile: { schedulerName: 's', plugins: [{ name: 'NodeName' }, { name: 'NodeName' }] } }), /already registered/);
  assert.throws(() => new Framework({ registry: newInTreeRegistry(), profile: { schedulerName: 's', plugins: [{ name: 'Nope' }] } }), /does not exist/);
});

void test('the default profile wires plugins to their extension points in upstream order with weights', () => {
  const fwk = new Framework({ registry: newInTreeRegistry(), profile: defaultProfile() });
  assert.equal(fwk.queueSortPlugin?.name, 'PrioritySort');
  assert.deepEqual(fwk.preEnqueuePlugins.map((p) => p.name), ['SchedulingGates']);
  assert.deepEqual(fwk.preFilterPlugins.map((p) => p.name), ['NodeAffinity', 'NodePorts', 'NodeResourcesFit', 'VolumeBinding', 'PodTopologySpread', 'InterPodAffinity']);
  assert.deepEqual(fwk.filterPlugins.map((p) => p.name), ['NodeUnschedulable', 'NodeName', 'TaintToleration', 'NodeAffinity', 'NodePorts', 'NodeResourcesFit', 'VolumeBinding', 'PodTopologySpread', 'InterPodAffinity']);
  assert.deepEqual(fwk.reservePlugins.map((p) => p.name), ['VolumeBinding']);
  assert.deepEqual(fwk.preBindPlugins.map((p) => p.name), ['VolumeBinding']);
  assert.deepEqual(fwk.postFilterPlugins.map((p) => p.name), ['DefaultPreemption']);
  assert.deepEqual(fwk.preScorePlugins.map((p) => p.name), ['TaintToleration', 'NodeAffinity', 'NodeResourcesFit', 'PodTopologySpread', 'InterPodAffinity', 'NodeResourcesBalancedAllocation']);
  assert.deepEqual(
    fwk.scorePlugins.map((p) => [p.plugin.name, p.weight]),
    [
      ['TaintToleration', 3],
      ['NodeAffinity', 2],
      ['NodeResourcesFit', 1],
      ['PodTopologySpread', 2],
      ['InterPodAffinity', 2],
      ['NodeResourcesBalancedAllocation', 1],
      ['ImageLocality', 1],
    ],
  );
  assert.deepEqual(fwk.bindPlugins.map((p) => p.name), ['DefaultBinder']);
});
