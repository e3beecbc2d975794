/**
 * Upstream's strategic merge patch test tables (testdata/strategicpatch-cases.yaml, from
 * k8s.io/apimachinery/pkg/util/strategicpatch/patch_test.go) on upstream's test type `mergeItem`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { applyStrategicMergePatch, type PatchSchema } from './strategic-merge-patch.js';
import { PatchError } from './json-patch.js';
import type { JsonObject } from './json.js';

interface Meta {
  patchStrategy?: string;
  patchMergeKey?: string;
}

/** A field of the test types: its patch metadata and, for structs and lists of structs, the element type. */
class FakeSchema implements PatchSchema {
  constructor(
    private readonly fields: () => Record<string, FakeSchema>,
    readonly meta: Meta = {},
    private readonly element?: () => FakeSchema,
  ) {}
  field(name: string): PatchSchema | undefined {
    return this.fields()[name];
  }
  items(): PatchSchema | undefined {
    return this.element?.();
  }
  with(meta: Meta, element?: () => FakeSchema): FakeSchema {
    return new FakeSchema(this.fields, meta, element);
  }
}

const scalar = new FakeSchema(() => ({}));
const simpleMap = new FakeSchema(() => ({}));
// MergeItem and RetainKeysMergeItem of patch_test.go.
const mergeItem: FakeSchema = new FakeSchema(() => ({
  name: scalar,
  value: scalar,
  other: scalar,
  mergingList: scalar.with({ patchStrategy: 'merge', patchMergeKey: 'name' }, () => mergeItem),
  nonMergingList: scalar.with({}, () => mergeItem),
  mergingIntList: scalar.with({ patchStrategy: 'merge' }, () => scalar),
  nonMergingIntList: scalar.with({}, () => scalar),
  mergeItemPtr: mergeItem.with({ patchStrategy: 'merge', patchMergeKey: 'name' }, () => mergeItem),
  simpleMap,
  replacingItem: scalar.with({ patchStrategy: 'replace' }),
  retainKeysMap: retainKeysMergeItem.with({ patchStrategy: 'retainKeys' }),
  retainKeysMergingList: scalar.with({ patchStrategy: 'merge,retainKeys', patchMergeKey: 'name' }, () => mergeItem),
}));
const retainKeysMergeItem: FakeSchema = new FakeSchema(() => ({
  name: scalar,
  value: scalar,
  other: scalar,
  simpleMap,
  mergingIntList: scalar.with({ patchStrategy: 'merge' }, () => scalar),
  mergingList: scalar.with({ patchStrategy: 'merge', patchMergeKey: 'name' }, () => mergeItem),
  nonMergingList: scalar.with({}, () => mergeItem),
}));

interface Case {
  description: string;
  original?: JsonObject;
  twoWay?: JsonObject;
  modified?: JsonObject;
  twoWayResult?: JsonObject;
  current?: JsonObject;
  threeWay?: JsonObject;
  result?: JsonObject;
  expectedError?: string;
  /** The 1.32 result where upstream's expectation changed later (both the two- and three-way result). */
  result132?: JsonObject;
}

const data = parse(readFileSync(new URL('../../../../src/apiserver/patch/testdata/strategicpatch-cases.yaml', import.meta.url), 'utf8')) as Record<string, Case[]>;

for (const [group, cases] of Object.entries(data)) {
  for (const c of cases) {
    void test(`${group}: ${c.description} (two-way)`, () => {
      const run = (): JsonObject => applyStrategicMergePatch(c.original ?? {}, c.twoWay ?? {}, mergeItem);
      if (c.expectedError !== undefined) {
        const want = c.expectedError;
        assert.throws(run, (e: unknown) => e instanceof PatchError && e.message.includes(want));
        return;
      }
      assert.deepEqual(run(), c.result132 ?? c.twoWayResult ?? c.modified ?? {});
    });
    if (c.threeWay !== undefined && c.result !== undefined) {
      const threeWay = c.threeWay;
      const result = c.result;
      void test(`${group}: ${c.description} (three-way)`, () => {
        assert.deepEqual(applyStrategicMergePatch(c.current ?? {}, threeWay, mergeItem), c.result132 ?? result);
      });
    }
  }
}
