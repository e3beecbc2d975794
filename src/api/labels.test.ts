import { test } from 'node:test';
import assert from 'node:assert/strict';
import { labelSelectorAsSelector, selectorFromSet } from './labels.js';

test('LabelSelectorAsSelector: labels are k=v requirements sorted by key, as upstream prints them', () => {
  assert.equal(labelSelectorAsSelector({ matchLabels: { tier: 'web', app: 'shop' } }).toString(), 'app=shop,tier=web');
  assert.equal(labelSelectorAsSelector({ matchLabels: { z: '1' }, matchExpressions: [{ key: 'a', operator: 'Exists' }] }).toString(), 'a,z=1');
  assert.equal(labelSelectorAsSelector({}).toString(), '');
  assert.equal(labelSelectorAsSelector(undefined).matches({ any: 'thing' }), false);
});

test('SelectorFromSet: a plain label map selects what it names; an empty one selects everything', () => {
  assert.equal(selectorFromSet({ app: 'legacy' }).toString(), 'app=legacy');
  assert.equal(selectorFromSet({ app: 'legacy' }).matches({ app: 'legacy', extra: 'x' }), true);
  assert.equal(selectorFromSet({ app: 'legacy' }).matches({ app: 'other' }), false);
  assert.equal(selectorFromSet(undefined).matches({ any: 'thing' }), true);
});
