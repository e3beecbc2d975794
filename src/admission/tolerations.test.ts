import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Taint, Toleration } from 'kubernetes-types/core/v1.js';
import { findMatchingUntoleratedTaint, isSuperset, mergeTolerations, taintToString, tolerationsTolerateTaint, toleratesTaint } from './tolerations.js';

// staging/src/k8s.io/api/core/v1/toleration_test.go TestTolerationToleratesTaint (the 1.32 cases; the
// Gt/Lt cases belong to the 1.35 TaintTolerationComparisonOperators gate and are covered below with the
// 1.32 rule that an unknown operator never matches).
const toleratesCases: { description: string; toleration: Toleration; taint: Taint; expectTolerated: boolean }[] = [
  {
    description: 'toleration and taint have the same key and effect, and operator is Exists, and taint has no value, expect tolerated',
    toleration: { key: 'foo', operator: 'Exists', effect: 'NoSchedule' },
    taint: { key: 'foo', effect: 'NoSchedule' },
    expectTolerated: true,
  },
  {
    description: 'toleration and taint have the same key and effect, and operator is Exists, and taint has some value, expect tolerated',
    toleration: { key: 'foo', operator: 'Exists', effect: 'NoSchedule' },
    taint: { key: 'foo', value: 'bar', effect: 'NoSchedule' },
    expectTolerated: true,
  },
  {
    description: 'toleration and taint have the same effect, toleration has empty key and operator is Exists, means match all taints, expect tolerated',
    toleration: { key: '', operator: 'Exists', effect: 'NoSchedule' },
    taint: { key: 'foo', value: 'bar', effect: 'NoSchedule' },
    expectTolerated: true,
  },
  {
    description: 'toleration and taint have the same key, effect and value, and operator is Equal, expect tolerated',
    toleration: { key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoSchedule' },
    taint: { key: 'foo', value: 'bar', effect: 'NoSchedule' },
    expectTolerated: true,
  },
  {
    description: 'toleration and taint have the same key and effect, but different values, and operator is Equal, expect not tolerated',
    toleration: { key: 'foo', operator: 'Equal', value: 'value1', effect: 'NoSchedule' },
    taint: { key: 'foo', value: 'value2', effect: 'NoSchedule' },
    expectTolerated: false,
  },
  {
    description: 'toleration and taint have the same key and value, but different effects, and operator is Equal, expect not tolerated',
    toleration: { key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoSchedule' },
    taint: { key: 'foo', value: 'bar', effect: 'NoExecute' },
    expectTolerated: false,
  },
];

for (const tc of toleratesCases) {
  test(`ToleratesTaint: ${tc.description}`, () => {
    assert.equal(toleratesTaint(tc.toleration, tc.taint), tc.expectTolerated);
  });
}

test('ToleratesTaint: toleration with Gt operator is not understood in 1.32, expect not tolerated', () => {
  assert.equal(toleratesTaint({ key: 'node.kubernetes.io/sla', operator: 'Gt', value: '750', effect: 'NoSchedule' }, { key: 'node.kubernetes.io/sla', value: '950', effect: 'NoSchedule' }), false);
  assert.equal(toleratesTaint({ key: 'node.kubernetes.io/sla', operator: 'Lt', value: '950', effect: 'NoSchedule' }, { key: 'node.kubernetes.io/sla', value: '800', effect: 'NoSchedule' }), false);
});

test('ToleratesTaint: empty operator means Equal and an empty value matches only an empty value', () => {
  assert.equal(toleratesTaint({ key: 'foo' }, { key: 'foo', effect: 'NoSchedule' }), true);
  assert.equal(toleratesTaint({ key: 'foo' }, { key: 'foo', value: 'x', effect: 'NoSchedule' }), false);
  assert.equal(toleratesTaint({ operator: 'Exists' }, { key: 'any', value: 'x', effect: 'NoExecute' }), true);
});

test('TolerationsTolerateTaint is true when any toleration matches', () => {
  const taint: Taint = { key: 'a', value: 'b', effect: 'NoSchedule' };
  assert.equal(tolerationsTolerateTaint([{ key: 'x', operator: 'Exists' }, { key: 'a', value: 'b' }], taint), true);
  assert.equal(tolerationsTolerateTaint([{ key: 'x', operator: 'Exists' }], taint), false);
  assert.equal(tolerationsTolerateTaint(undefined, taint), false);
});

test('FindMatchingUntoleratedTaint returns the first filtered untolerated taint in node order', () => {
  const taints: Taint[] = [
    { key: 'soft', effect: 'PreferNoSchedule' },
    { key: 'tolerated', effect: 'NoSchedule' },
    { key: 'first', value: 'v', effect: 'NoSchedule' },
    { key: 'second', effect: 'NoExecute' },
  ];
  const filter = (t: Taint): boolean => t.effect === 'NoSchedule' || t.effect === 'NoExecute';
  assert.deepEqual(findMatchingUntoleratedTaint(taints, [{ key: 'tolerated', operator: 'Exists' }], filter), taints[2]);
  assert.equal(findMatchingUntoleratedTaint(taints, [{ operator: 'Exists' }], filter), undefined);
});

test('Taint.ToString forms', () => {
  assert.equal(taintToString({ key: 'k', value: 'v', effect: 'NoSchedule' }), 'k=v:NoSchedule');
  assert.equal(taintToString({ key: 'k', effect: 'NoSchedule' }), 'k:NoSchedule');
});

// pkg/util/tolerations/tolerations_test.go
const tolerations: Record<string, Toleration> = {
  all: { operator: 'Exists' },
  'all-nosched': { operator: 'Exists', effect: 'NoSchedule' },
  'all-noexec': { operator: 'Exists', effect: 'NoExecute' },
  foo: { key: 'foo', operator: 'Exists' },
  'foo-bar': { key: 'foo', operator: 'Equal', value: 'bar' },
  'foo-nosched': { key: 'foo', operator: 'Exists', effect: 'NoSchedule' },
  'foo-bar-nosched': { key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoSchedule' },
  'foo-baz-nosched': { key: 'foo', operator: 'Equal', value: 'baz', effect: 'NoSchedule' },
  'faz-nosched': { key: 'faz', operator: 'Exists', effect: 'NoSchedule' },
  'faz-baz-nosched': { key: 'faz', operator: 'Equal', value: 'baz', effect: 'NoSchedule' },
  'foo-prefnosched': { key: 'foo', operator: 'Exists', effect: 'PreferNoSchedule' },
  'foo-noexec': { key: 'foo', operator: 'Exists', effect: 'NoExecute' },
  'foo-bar-noexec': { key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoExecute' },
  'foo-noexec-10': { key: 'foo', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 },
  'foo-noexec-0': { key: 'foo', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 0 },
  'foo-bar-noexec-10': { key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoExecute', tolerationSeconds: 10 },
};

const supersetCases: { toleration: string; ss: string[] }[] = [
  { toleration: 'all', ss: ['all-nosched', 'all-noexec', 'foo', 'foo-bar', 'foo-nosched', 'foo-bar-nosched', 'foo-baz-nosched', 'faz-nosched', 'faz-baz-nosched', 'foo-prefnosched', 'foo-noexec', 'foo-bar-noexec', 'foo-noexec-10', 'foo-noexec-0', 'foo-bar-noexec-10'] },
  { toleration: 'all-nosched', ss: ['foo-nosched', 'foo-bar-nosched', 'foo-baz-nosched', 'faz-nosched', 'faz-baz-nosched'] },
  { toleration: 'all-noexec', ss: ['foo-noexec', 'foo-bar-noexec', 'foo-noexec-10', 'foo-noexec-0', 'foo-bar-noexec-10'] },
  { toleration: 'foo', ss: ['foo-bar', 'foo-nosched', 'foo-bar-nosched', 'foo-baz-nosched', 'foo-prefnosched', 'foo-noexec', 'foo-bar-noexec', 'foo-noexec-10', 'foo-noexec-0', 'foo-bar-noexec-10'] },
  { toleration: 'foo-bar', ss: ['foo-bar-nosched', 'foo-bar-noexec', 'foo-bar-noexec-10'] },
  { toleration: 'foo-nosched', ss: ['foo-bar-nosched', 'foo-baz-nosched'] },
  { toleration: 'foo-bar-nosched', ss: [] },
  { toleration: 'faz-nosched', ss: ['faz-baz-nosched'] },
  { toleration: 'faz-baz-nosched', ss: [] },
  { toleration: 'foo-prenosched', ss: [] },
  { toleration: 'foo-noexec', ss: ['foo-noexec', 'foo-bar-noexec', 'foo-noexec-10', 'foo-noexec-0', 'foo-bar-noexec-10'] },
  { toleration: 'foo-bar-noexec', ss: ['foo-bar-noexec-10'] },
  { toleration: 'foo-noexec-10', ss: ['foo-noexec-0', 'foo-bar-noexec-10'] },
  { toleration: 'foo-noexec-0', ss: [] },
  { toleration: 'foo-bar-noexec-10', ss: [] },
];

for (const tc of supersetCases) {
  test(`TestIsSuperset/${tc.toleration}`, () => {
    // Upstream indexes a Go map, so the misspelt "foo-prenosched" is the zero Toleration.
    const superTol = tolerations[tc.toleration] ?? {};
    for (const [name, sub] of Object.entries(tolerations)) {
      const want = name === tc.toleration || tc.ss.includes(name);
      assert.equal(isSuperset(superTol, sub), want, `${tc.toleration} ${want ? 'should' : 'should NOT'} be a superset of ${name}`);
    }
  });
}

const get = (names: string[]): Toleration[] => names.map((n) => tolerations[n] ?? {});

const mergeCases: { name: string; a: string[]; b: string[]; expected: string[] }[] = [
  { name: 'disjoint', a: ['foo-bar-nosched', 'faz-baz-nosched', 'foo-noexec-10'], b: ['foo-prefnosched', 'foo-baz-nosched'], expected: ['foo-bar-nosched', 'faz-baz-nosched', 'foo-noexec-10', 'foo-prefnosched', 'foo-baz-nosched'] },
  { name: 'duplicate', a: ['foo-bar-nosched', 'faz-baz-nosched', 'foo-noexec-10'], b: ['foo-bar-nosched', 'faz-baz-nosched', 'foo-noexec-10'], expected: ['foo-bar-nosched', 'faz-baz-nosched', 'foo-noexec-10'] },
  { name: 'merge redundant', a: ['foo-bar-nosched', 'foo-baz-nosched'], b: ['foo-nosched', 'faz-baz-nosched'], expected: ['foo-nosched', 'faz-baz-nosched'] },
  { name: 'merge all', a: ['foo-bar-nosched', 'foo-baz-nosched', 'foo-noexec-10'], b: ['all'], expected: ['all'] },
  { name: 'merge into all', a: ['all'], b: ['foo-bar-nosched', 'foo-baz-nosched', 'foo-noexec-10'], expected: ['all'] },
];

for (const tc of mergeCases) {
  test(`TestMergeTolerations/${tc.name}`, () => {
    assert.deepEqual(mergeTolerations(get(tc.a), get(tc.b)), get(tc.expected));
  });
}

test('TestFuzzed/MergeTolerations: every input toleration is contained in the result', () => {
  let seed = 1234;
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const effects = ['', 'NoExecute', 'NoSchedule', 'PreferNoSchedule'];
  const gen = (): Toleration => {
    if (rand(100) === 0) return { operator: 'Exists' };
    const effect = effects[rand(effects.length)] ?? '';
    const t: Toleration = { key: 'a'.repeat(rand(6) + 1), effect };
    if (rand(10) < 3) t.operator = 'Exists';
    else {
      t.operator = 'Equal';
      t.value = 'b'.repeat(rand(6) + 1);
    }
    if (effect === 'NoExecute' && rand(2) === 0) t.tolerationSeconds = rand(10);
    return t;
  };
  const genList = (): Toleration[] => Array.from({ length: rand(10) }, gen);
  for (let i = 0; i < 1000; i++) {
    const a = genList();
    const b = genList();
    const result = mergeTolerations(a, b);
    for (const t of [...a, ...b]) assert.ok(result.some((r) => isSuperset(r, t)), JSON.stringify({ a, b, result }));
  }
});
