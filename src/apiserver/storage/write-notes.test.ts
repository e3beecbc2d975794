import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WriteNotes } from './write-notes.js';

const kv = (key: string, value: Uint8Array): { key: string; value: Uint8Array; createRevision: number; modRevision: number } => ({ key, value, createRevision: 1, modRevision: 1 });
const note = (text: string): { attrs: string; text: string } => ({ attrs: `attrs of ${text}`, text });

void test('a write is matched by its very bytes, or by the same bytes in another buffer (a copy from etcd), once', () => {
  const notes = new WriteNotes<string>();
  const a = Buffer.from('{"a":1}');
  const b = Buffer.from('{"b":1}');
  notes.add('/k/a', a, note('a'));
  notes.add('/k/b', b, note('b'));
  assert.equal(notes.take(kv('/k/a', a))?.text, 'a');
  assert.equal(notes.take(kv('/k/b', Uint8Array.from(b)))?.text, 'b', 'a copy matches by content');
  assert.equal(notes.take(kv('/k/a', a)), undefined, 'taken once');
  assert.equal(notes.size, 0);
});

void test('values this server did not note are not matched', () => {
  const notes = new WriteNotes<string>();
  notes.add('/k/a', Buffer.from('{"a":1}'), note('a'));
  const cases: { name: string; key: string; value: string }[] = [
    { name: 'same key, other content', key: '/k/a', value: '{"a":2}' },
    { name: 'same key, longer content', key: '/k/a', value: '{"a":1} ' },
    { name: 'same content, other key', key: '/k/b', value: '{"a":1}' },
  ];
  for (const tc of cases) assert.equal(notes.take(kv(tc.key, Buffer.from(tc.value))), undefined, tc.name);
  assert.equal(notes.size, 1);
});

void test('a write seen drops the notes taken before it for its key (writes that failed their precondition)', () => {
  const notes = new WriteNotes<string>();
  const failed = Buffer.from('v1-lost');
  const won = Buffer.from('v1-won');
  const next = Buffer.from('v2');
  notes.add('/k/a', failed, note('lost'));
  notes.add('/k/a', won, note('won'));
  notes.add('/k/a', next, note('next'));
  notes.add('/k/b', Buffer.from('other key'), note('b'));
  assert.equal(notes.take(kv('/k/a', won))?.text, 'won');
  assert.equal(notes.size, 2, 'the failed write is gone, the next one and the other key stay');
  assert.equal(notes.take(kv('/k/a', failed)), undefined);
  assert.equal(notes.take(kv('/k/a', next))?.text, 'next');
});

void test('notes nobody takes are swept once they are older than the maximum age', () => {
  let now = 0;
  const notes = new WriteNotes<string>(() => now, 1000);
  notes.add('/k/old', Buffer.from('never written'), note('old'));
  now = 600;
  notes.add('/k/young', Buffer.from('young'), note('young'));
  assert.equal(notes.size, 2);
  now = 1500;
  notes.add('/k/new', Buffer.from('new'), note('new'));
  assert.equal(notes.size, 2, 'the 1500 ms old note is swept, the 900 ms old one kept');
  assert.equal(notes.take(kv('/k/old', Buffer.from('never written'))), undefined);
  assert.equal(notes.take(kv('/k/young', Buffer.from('young')))?.text, 'young');
});
