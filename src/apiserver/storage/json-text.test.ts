import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memberText } from './json-text.js';

const node = {
  metadata: { name: 'n1', annotations: { note: 'a "quoted" } brace, and [bracket' }, managedFields: [{ fieldsV1: { 'f:status': { 'f:conditions': {} } } }] },
  spec: { podCIDR: '10.244.1.0/24' },
  status: {
    images: [{ names: ['a\\"b', 'c'], sizeBytes: 10 }],
    conditions: [{ type: 'Ready', status: 'True', message: 'kubelet is posting ready status' }],
    phase: null,
    capacity: { pods: '110' },
  },
};
const text = JSON.stringify(node);

test('memberText answers the text of a nested member, as JSON.stringify wrote it', () => {
  assert.equal(memberText(text, ['status', 'conditions']), JSON.stringify(node.status.conditions));
  assert.equal(memberText(text, ['status', 'capacity']), '{"pods":"110"}');
  assert.equal(memberText(text, ['status', 'phase']), 'null');
  assert.equal(memberText(text, ['metadata', 'name']), '"n1"');
  assert.equal(memberText(text, ['spec']), JSON.stringify(node.spec));
  assert.equal(memberText(text, []), text);
});

test('memberText steps over strings holding quotes, braces and brackets', () => {
  assert.equal(memberText(text, ['metadata', 'managedFields']), JSON.stringify(node.metadata.managedFields));
  assert.equal(memberText(text, ['status', 'images']), JSON.stringify(node.status.images));
});

test('memberText matches whole member names at the level asked, not deeper or in values', () => {
  // `f:conditions` inside managedFields and the word in a message are not status.conditions.
  const t = JSON.stringify({ metadata: { conditions: 1 }, status: { message: '"conditions":[]', conditionsSeen: 2 } });
  assert.equal(memberText(t, ['conditions']), undefined);
  assert.equal(memberText(t, ['status', 'conditions']), undefined);
  assert.equal(memberText(t, ['metadata', 'conditions']), '1');
});

test('memberText answers undefined when a member on the path is missing or not an object', () => {
  assert.equal(memberText(text, ['status', 'addresses']), undefined);
  assert.equal(memberText(text, ['spec', 'podCIDR', 'x']), undefined);
  assert.equal(memberText(text, ['status', 'conditions', 'type']), undefined);
  assert.equal(memberText('{}', ['status']), undefined);
  assert.equal(memberText('[1,2]', ['status']), undefined);
});
