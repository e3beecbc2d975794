import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { Selector, type Requirement } from '../../../api/labels.js';
import { Cache } from '../../cache/cache.js';
import { Snapshot } from '../../cache/snapshot.js';
import { CycleState } from '../../framework/cycle-state.js';
import { Framework } from '../../framework/runtime.js';
import { NodeInfo } from '../../framework/types.js';
import { makeNode, makePod } from '../../_testing/wrappers.js';
import { newInTreeRegistry } from '../registry.js';
import { DomainCounts, MatchCounts, countPodsMatchSelector, memoKey, type DomainQuestion } from './_domain-counts.js';
import type { PodTopologySpread } from './pod-topology-spread.js';

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const zones = ['z1', 'z2', 'z3', 'z4'];

function randomNode(name: string, rnd: () => number): Node {
  const w = makeNode(name).label('kubernetes.io/hostname', name);
  if (rnd() < 0.9) w.label('zone', zones[Math.floor(rnd() * zones.length)] ?? 'z1');
  if (rnd() < 0.7) w.label('os', 'linux');
  if (rnd() < 0.2) w.taint({ key: 'dedicated', value: 'x', effect: 'NoSchedule' });
  return w.obj();
}

function randomPod(name: string, node: string, rnd: () => number): Pod {
  const w = makePod(name)
    .namespace(rnd() < 0.8 ? 'default' : 'other')
    .label('app', rnd() < 0.5 ? 'a' : 'b')
    .node(node);
  if (rnd() < 0.1) w.terminating();
  return w.obj();
}

/** The straightforward computation: every node of the list, in order. */
function reference(list: readonly NodeInfo[], q: DomainQuestion): { totals: Map<string, number>; order: string[] } {
  const totals = new Map<string, number>();
  for (const ni of list) {
    const v = q.valueOf(ni);
    if (v === undefined) continue;
    totals.set(v, (totals.get(v) ?? 0) + countPodsMatchSelector(ni.pods, q.selector, q.namespace));
  }
  return { totals, order: [...totals.keys()] };
}

/** Random cache changes: pods assumed, added, updated and removed, node labels changed, nodes added and removed. */
function* randomHistory(seed: number, steps: number): Generator<{ cache: Cache; snapshot: Snapshot }> {
  const rnd = mulberry32(seed);
  const cache = new Cache();
  const snapshot = new Snapshot();
  let nextNode = 0;
  let nextPod = 0;
  const nodes = new Map<string, Node>();
  const pods = new Map<string, Pod>();
  for (let i = 0; i < 12; i++) {
    const n = randomNode(`n${nextNode++}`, rnd);
    nodes.set(n.metadata?.name ?? '', n);
    cache.addNode(n);
  }
  for (let step = 0; step < steps; step++) {
    const names = [...nodes.keys()];
    const r = rnd();
    if (r < 0.55 && names.length > 0) {
      const p = randomPod(`p${nextPod++}`, names[Math.floor(rnd() * names.length)] ?? '', rnd);
      pods.set(p.metadata?.name ?? '', p);
      if (rnd() < 0.5) cache.assumePod(p);
      else cache.addPod(p);
    } else if (r < 0.65 && pods.size > 0) {
      // An informer update of a bound pod: status only (the usual case), or new labels.
      const key = [...pods.keys()][Math.floor(rnd() * pods.size)] ?? '';
      const old = pods.get(key) as Pod;
      const labels = rnd() < 0.5 ? { ...(old.metadata?.labels ?? {}) } : { app: rnd() < 0.5 ? 'a' : 'b' };
      const updated: Pod = { ...old, metadata: { ...old.metadata, labels }, status: { phase: rnd() < 0.5 ? 'Running' : 'Pending' } };
      pods.set(key, updated);
      cache.updatePod(old, updated);
    } else if (r < 0.75 && pods.size > 0) {
      const key = [...pods.keys()][Math.floor(rnd() * pods.size)] ?? '';
      const p = pods.get(key) as Pod;
      pods.delete(key);
      cache.removePod(p);
    } else if (r < 0.9 && names.length > 0) {
      const name = names[Math.floor(rnd() * names.length)] ?? '';
      const n = randomNode(name, rnd);
      nodes.set(name, n);
      cache.updateNode(undefined, n);
    } else if (r < 0.95) {
      const n = randomNode(`n${nextNode++}`, rnd);
      nodes.set(n.metadata?.name ?? '', n);
      cache.addNode(n);
    } else if (names.length > 1) {
      const name = names[Math.floor(rnd() * names.length)] ?? '';
      cache.removeNode(nodes.get(name) as Node);
      nodes.delete(name);
    }
    // Some steps pile up several changes before the next cycle looks.
    if (rnd() < 0.7) {
      cache.updateSnapshot(snapshot);
      yield { cache, snapshot };
    }
  }
}

void test('incremental domain counts equal a full recount after every cache change', () => {
  for (const seed of [1, 2, 3]) {
    const matchCounts = new MatchCounts();
    const selector = new Selector([{ key: 'app', operator: 'In', values: ['a'] }]);
    const questions: DomainQuestion[] = [
      { topologyKey: 'zone', selector, selectorId: matchCounts.idOf(memoKey(selector, 'default')), namespace: 'default', valueOf: (ni) => (Object.prototype.hasOwnProperty.call(ni.labels, 'zone') ? (ni.labels['zone'] ?? '') : undefined) },
      { topologyKey: 'zone', selector, selectorId: matchCounts.idOf(memoKey(selector, 'default')), namespace: 'default', valueOf: (ni) => (ni.labels['os'] === 'linux' ? (ni.labels['zone'] ?? '') : undefined) },
      { topologyKey: 'kubernetes.io/hostname', selector, selectorId: matchCounts.idOf(memoKey(selector, 'other')), namespace: 'other', valueOf: (ni) => (ni.taints.length === 0 ? (ni.labels['kubernetes.io/hostname'] ?? '') : undefined) },
    ];
    const counts = questions.map(() => new DomainCounts());
    let step = 0;
    for (const { snapshot } of randomHistory(seed, 400)) {
      // Not every question is asked every cycle: the ones skipped catch up later.
      questions.forEach((q, i) => {
        if ((step + i) % 3 === 0) return;
        const dc = counts[i] as DomainCounts;
        dc.sync(snapshot, q, matchCounts);
        const want = reference(snapshot.list(), q);
        assert.deepEqual([...dc.order()], want.order, `seed ${seed} step ${step} question ${i}: order`);
        for (const v of want.order) assert.equal(dc.total(v), want.totals.get(v), `seed ${seed} step ${step} question ${i}: ${v}`);
        assert.equal(dc.total('no-such-value'), undefined);
      });
      step++;
    }
  }
});

void test('the change log answers only for cursors it still holds', () => {
  const s = new Snapshot();
  const cache = new Cache();
  cache.addNode(makeNode('a').obj());
  cache.updateSnapshot(s);
  const c0 = s.changeCursor();
  cache.addPod(makePod('p').node('a').obj());
  cache.updateSnapshot(s);
  const ch = s.changesSince(c0);
  assert.ok(ch !== undefined);
  assert.deepEqual(ch.log.slice(ch.from), [s.get('a')]);
  assert.equal(s.indexOf(s.get('a') as NodeInfo), 0);
  for (let i = 0; i < 3000; i++) {
    cache.addPod(makePod(`q${i}`).node('a').obj());
    cache.updateSnapshot(s);
  }
  assert.equal(s.changesSince(c0), undefined);
  assert.deepEqual(s.changesSince(s.changeCursor())?.from, s.changesSince(s.changeCursor())?.log.length);
});

/**
 * Every node's filter verdict and every score of one plugin instance. With `copies`, Score gets copies of
 * the NodeInfos (outside the snapshot list), which takes the direct per-node count path.
 */
function verdicts(pl: PodTopologySpread, pod: Pod, list: readonly NodeInfo[], copies = false): unknown {
  const state = new CycleState();
  const pre = pl.preFilter(state, pod);
  const filter = pre.status.isSkip() ? 'skip' : list.map((ni) => `${ni.name}:${pl.filter(state, pod, ni).code}`);
  const ps = pl.preScore(state, pod, list);
  if (!ps.isSuccess()) return { filter, preScore: ps.code };
  const scores = list.map((ni) => ({ name: ni.name, score: pl.score(state, pod, copies ? ni.snapshot() : ni).score }));
  pl.normalizeScore(state, pod, scores);
  return { filter, scores };
}

void test('PodTopologySpread with its cross-cycle counts decides as a fresh instance on every cycle', () => {
  const owner = new Selector([{ key: 'app', operator: 'In', values: ['a'] }]);
  const spreading = { serviceSelectors: () => [], controllerSelector: () => owner };
  const newPlugin = (s: Snapshot): PodTopologySpread => {
    const fwk = new Framework({ registry: newInTreeRegistry(), profile: { schedulerName: 's', plugins: [{ name: 'PodTopologySpread' }] }, spreadingSelectorSource: spreading });
    fwk.setSnapshot(s);
    return fwk.plugins[0] as PodTopologySpread;
  };
  const pods = [
    makePod('hard').label('app', 'a').nodeSelector({ os: 'linux' }).spreadConstraint(1, 'zone', 'DoNotSchedule', { matchLabels: { app: 'a' } }).obj(),
    makePod('two')
      .label('app', 'a')
      .spreadConstraint(1, 'zone', 'DoNotSchedule', { matchLabels: { app: 'a' } })
      .spreadConstraint(2, 'zone', 'DoNotSchedule', { matchLabels: { app: 'b' } }, { nodeTaintsPolicy: 'Honor' })
      .spreadConstraint(1, 'kubernetes.io/hostname', 'DoNotSchedule', { matchLabels: { app: 'a' } })
      .obj(),
    makePod('soft').label('app', 'b').spreadConstraint(1, 'zone', 'ScheduleAnyway', { matchLabels: { app: 'b' } }).obj(),
    makePod('default').label('app', 'a').nodeSelector({ os: 'linux' }).obj(),
  ];
  let kept: PodTopologySpread | undefined;
  let step = 0;
  for (const { snapshot } of randomHistory(7, 300)) {
    kept ??= newPlugin(snapshot);
    const pod = pods[step % pods.length] as Pod;
    assert.deepEqual(verdicts(kept, pod, snapshot.list()), verdicts(newPlugin(snapshot), pod, snapshot.list(), true), `step ${step}`);
    step++;
  }
});

void test('a node counted through its pods\' label index gives countPodsMatchSelector\'s answer for every selector', () => {
  const rnd = mulberry32(7);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const keys = ['app', 'tier', 'pod-template-hash'];
  const values = ['a', 'b', 'c'];
  const randomRequirement = (): Requirement => {
    const operator = pick(['In', 'Equals', 'DoubleEquals', 'NotIn', 'NotEquals', 'Exists', 'DoesNotExist'] as const);
    const n = operator === 'In' || operator === 'NotIn' ? 1 + Math.floor(rnd() * 3) : operator === 'Exists' || operator === 'DoesNotExist' ? 0 : 1;
    // `In` may list a value twice: the pods carrying it still count once.
    return { key: pick(keys), operator, values: Array.from({ length: n }, () => pick(values)) };
  };
  for (let round = 0; round < 200; round++) {
    const pods: Pod[] = [];
    for (let i = 0, n = 1 + Math.floor(rnd() * 40); i < n; i++) {
      const w = makePod(`p${i}`).namespace(pick(['default', 'default', 'other']));
      for (const k of keys) if (rnd() < 0.7) w.label(k, pick(values));
      if (rnd() < 0.1) w.terminating();
      pods.push(w.obj());
    }
    const ni = new NodeInfo(...pods);
    const matchCounts = new MatchCounts();
    for (let q = 0; q < 10; q++) {
      const selector = new Selector(Array.from({ length: 1 + Math.floor(rnd() * 3) }, randomRequirement));
      const ns = pick(['default', 'other', 'none']);
      const want = countPodsMatchSelector(ni.pods, selector, ns);
      const got = matchCounts.count(ni, selector, matchCounts.idOf(memoKey(selector, ns)), ns);
      assert.equal(got, want, `round ${round}: ${selector.toString()} in ${ns} over ${pods.length} pods`);
    }
  }
});

void test('a node counted afresh while catching up is not moved again by its later logged copies', () => {
  const matchCounts = new MatchCounts();
  const selector = new Selector([{ key: 'app', operator: 'In', values: ['a'] }]);
  const q: DomainQuestion = { topologyKey: 'zone', selector, selectorId: matchCounts.idOf(memoKey(selector, 'default')), namespace: 'default', valueOf: (ni) => (ni.labels['os'] === 'linux' ? (ni.labels['zone'] ?? '') : undefined) };
  const cache = new Cache();
  const snapshot = new Snapshot();
  cache.addNode(makeNode('a').label('zone', 'z1').label('os', 'linux').obj());
  cache.addNode(makeNode('b').label('zone', 'z1').label('os', 'linux').obj());
  cache.addPod(makePod('p0').label('app', 'a').node('a').obj());
  cache.updateSnapshot(snapshot);
  const dc = new DomainCounts();
  dc.sync(snapshot, q, matchCounts);
  assert.equal(dc.total('z1'), 1);
  // The node object changes (not its zone: the list stays), then pods come and go, over several copies.
  cache.updateNode(undefined, makeNode('a').label('zone', 'z1').label('os', 'linux').label('tier', 'x').obj());
  cache.updateSnapshot(snapshot);
  const p1 = makePod('p1').label('app', 'a').node('a').obj();
  cache.addPod(p1);
  cache.updateSnapshot(snapshot);
  cache.addPod(makePod('p2').label('app', 'a').node('a').obj());
  cache.addPod(makePod('p3').label('app', 'b').node('a').obj());
  cache.updateSnapshot(snapshot);
  cache.removePod(p1);
  cache.updateSnapshot(snapshot);
  dc.sync(snapshot, q, matchCounts);
  assert.equal(dc.total('z1'), reference(snapshot.list(), q).totals.get('z1'));
  assert.equal(dc.total('z1'), 2);
  // Only pods changed since: moved by them alone.
  cache.addPod(makePod('p4').label('app', 'a').node('b').obj());
  cache.updateSnapshot(snapshot);
  dc.sync(snapshot, q, matchCounts);
  assert.equal(dc.total('z1'), 3);
  // A new node object with only a new status is no change of its domain.
  const b = makeNode('b').label('zone', 'z1').label('os', 'linux').obj();
  cache.updateNode(undefined, { ...b, status: { ...b.status, conditions: [{ type: 'Ready', status: 'True' }] } });
  cache.addPod(makePod('p5').label('app', 'a').node('b').obj());
  cache.updateSnapshot(snapshot);
  dc.sync(snapshot, q, matchCounts);
  assert.equal(dc.total('z1'), 4);
  // Pods come to a node, then (in a later copy, before the question looks) its labels take it out of the
  // count: the node's value is taken again, not kept from the copy before.
  cache.addPod(makePod('p6').label('app', 'a').node('a').obj());
  cache.updateSnapshot(snapshot);
  cache.updateNode(undefined, makeNode('a').label('zone', 'z1').label('os', 'windows').obj());
  cache.updateSnapshot(snapshot);
  dc.sync(snapshot, q, matchCounts);
  assert.equal(dc.total('z1'), reference(snapshot.list(), q).totals.get('z1'));
  assert.equal(dc.total('z1'), 2);
});
