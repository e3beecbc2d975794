import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareForUpdate, rfc3339 } from './store.js';
import type { StoredObject } from '../storage/watch-cache.js';

/** The JSON storage keeps: the object without its resourceVersion. */
function stored(obj: StoredObject): string {
  const { resourceVersion: _rv, ...md } = obj.metadata ?? {};
  return JSON.stringify({ ...obj, metadata: md });
}

/** A pod in the form storage reads back (a creationTimestamp and the containers' resources are always there). */
const pod = (md: NonNullable<StoredObject['metadata']>, phase = 'Running'): StoredObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { creationTimestamp: '2026-11-27T10:00:00Z', ...md },
  spec: { containers: [{ name: 'app', image: 'pause', resources: {} }] },
  status: { phase },
});

// compareForUpdate must answer exactly as `JSON.stringify(next) === JSON.stringify(live)` did (key order
// included: a resourceVersion elsewhere in metadata makes otherwise equal objects differ).
const cases: { name: string; next: StoredObject; live: StoredObject; liveJson?: boolean }[] = [
  {
    name: 'equal objects with the resourceVersion last are unchanged',
    next: pod({ name: 'p', uid: 'u', resourceVersion: '7' }),
    live: pod({ name: 'p', uid: 'u', resourceVersion: '7' }),
  },
  {
    name: 'a changed status with the resourceVersion last is a change',
    next: pod({ name: 'p', uid: 'u', resourceVersion: '7' }, 'Succeeded'),
    live: pod({ name: 'p', uid: 'u', resourceVersion: '7' }),
  },
  {
    name: 'the stored text of live stands for live',
    next: pod({ name: 'p', uid: 'u', resourceVersion: '7' }),
    live: pod({ name: 'p', uid: 'u', resourceVersion: '7' }),
    liveJson: true,
  },
  {
    name: 'a change against the stored text of live is a change',
    next: pod({ name: 'p', uid: 'u', labels: { '10': 'x', a: 'b' }, resourceVersion: '7' }),
    live: pod({ name: 'p', uid: 'u', labels: { '10': 'x' }, resourceVersion: '7' }),
    liveJson: true,
  },
  {
    name: 'a resourceVersion not last in next makes equal content differ',
    next: pod({ name: 'p', resourceVersion: '7', uid: 'u' }),
    live: pod({ name: 'p', uid: 'u', resourceVersion: '7' }),
  },
  {
    name: 'a resourceVersion not last in either, at the same place, is unchanged',
    next: pod({ name: 'p', resourceVersion: '7', uid: 'u' }),
    live: pod({ name: 'p', resourceVersion: '7', uid: 'u' }),
  },
  {
    name: 'different resourceVersions differ',
    next: pod({ name: 'p', uid: 'u', resourceVersion: '8' }),
    live: pod({ name: 'p', uid: 'u', resourceVersion: '7' }),
  },
  {
    name: 'metadata keys in another order differ',
    next: pod({ uid: 'u', name: 'p', resourceVersion: '7' }),
    live: pod({ name: 'p', uid: 'u', resourceVersion: '7' }),
  },
  {
    name: 'objects without a resourceVersion compare as JSON',
    next: pod({ name: 'p' }),
    live: pod({ name: 'p' }),
  },
];

for (const tc of cases) {
  test(`compareForUpdate: ${tc.name}`, () => {
    const nextBefore = JSON.stringify(tc.next);
    const liveBefore = JSON.stringify(tc.live);
    const want = nextBefore === liveBefore;
    const got = compareForUpdate(tc.next, tc.live, tc.liveJson === true ? stored(tc.live) : undefined);
    assert.equal(got.unchanged, want);
    if (!got.unchanged && got.json !== undefined) assert.equal(got.json, stored(tc.next));
    // Neither object moves: key order is part of what callers see.
    assert.equal(JSON.stringify(tc.next), nextBefore);
    assert.equal(JSON.stringify(tc.live), liveBefore);
  });
}

test('rfc3339 drops the milliseconds of toISOString, as the regular expression it replaces did', () => {
  const dates = [0, 1795321387131, 1795321387999, -1, -62198755200001, 253402300800000, 8.64e15, -8.64e15].map((t) => new Date(t));
  for (const d of dates) assert.equal(rfc3339(d), d.toISOString().replace(/\.\d{3}Z$/, 'Z'));
  assert.throws(() => rfc3339(new Date(NaN)), RangeError);
});
