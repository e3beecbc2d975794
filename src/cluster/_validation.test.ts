import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Path } from '../api/field-errors.js';
import {
  ConfigReader,
  formatTaint,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  problemString,
} from './_validation.js';

// Tables from k8s.io/apimachinery/pkg/util/validation/validation_test.go.

void test('TestIsQualifiedName', () => {
  const good = [
    'simple',
    'now-with-dashes',
    '1-starts-with-num',
    '1234',
    'simple/simple',
    'now-with-dashes/simple',
    'now-with-dashes/now-with-dashes',
    'now.with.dots/simple',
    'now-with.dashes-and.dots/simple',
    '1-num.2-num/3-num',
    '1234/5678',
    '1.2.3.4/5678',
    'Uppercase_Is_OK_123',
    'example.com/Uppercase_Is_OK_123',
    'requests.storage-foo',
    'a'.repeat(63),
    `${'a'.repeat(253)}/${'b'.repeat(63)}`,
  ];
  for (const v of good) assert.deepEqual(isQualifiedName(v), [], v);
  const bad = [
    'nospecialchars%^=@',
    'cantendwithadash-',
    '-cantstartwithadash-',
    'only/one/slash',
    'Example.com/abc',
    'example_com/abc',
    'example.com/',
    '/simple',
    'a'.repeat(64),
    `${'a'.repeat(254)}/abc`,
  ];
  for (const v of bad) assert.notDeepEqual(isQualifiedName(v), [], v);
});

void test('qualified name messages name the part that is wrong', () => {
  assert.deepEqual(isQualifiedName('/simple'), ['prefix part must be non-empty']);
  assert.deepEqual(isQualifiedName('example.com/'), ['name part must be non-empty']);
  assert.deepEqual(isQualifiedName('a'.repeat(64)), ['name part must be no more than 63 characters']);
  assert.deepEqual(isQualifiedName('Example.com/abc'), [
    "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
  ]);
  assert.deepEqual(isQualifiedName('cantendwithadash-'), [
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
  ]);
});

void test('TestIsValidLabelValue', () => {
  const good = ['simple', 'now-with-dashes', '1-starts-with-num', 'end-with-num-1', '1234', 'a'.repeat(63), ''];
  for (const v of good) assert.deepEqual(isValidLabelValue(v), [], v);
  const bad = [
    'nospecialchars%^=@',
    'Tama-nui-te-rā.is.Māori.sun',
    '\\backslashes\\are\\bad',
    '-starts-with-dash',
    'ends-with-dash-',
    '.starts.with.dot',
    'ends.with.dot.',
    'a'.repeat(64),
  ];
  for (const v of bad) assert.notDeepEqual(isValidLabelValue(v), [], v);
  assert.deepEqual(isValidLabelValue('a'.repeat(64)), ['must be no more than 63 characters']);
});

void test('TestIsDNS1123Label', () => {
  const good = ['a', 'ab', 'abc', 'a1', 'a-1', 'a--1--2--b', '0', '01', '012', '1a', '1-a', '1--a--b--2', 'a'.repeat(63)];
  for (const v of good) assert.deepEqual(isDNS1123Label(v), [], v);
  const bad = [
    '', 'A', 'ABC', 'aBc', 'A1', 'A-1', '1-A', '-', 'a-', '-a', '1-', '-1', '_', 'a_', '_a', 'a_b', '1_', '_1', '1_2',
    '.', 'a.', '.a', 'a.b', '1.', '.1', '1.2', ' ', 'a ', ' a', 'a b', '1 ', ' 1', '1 2', 'a'.repeat(64),
  ];
  for (const v of bad) assert.notDeepEqual(isDNS1123Label(v), [], JSON.stringify(v));
});

void test('TestIsDNS1123Subdomain', () => {
  const good = [
    'a', 'ab', 'abc', 'a1', 'a-1', 'a--1--2--b', '0', '01', '012', '1a', '1-a', '1--a--b--2', 'a.a', 'ab.a', 'abc.a',
    'a1.a', 'a-1.a', 'a--1--2--b.a', 'a.1', 'ab.1', 'abc.1', 'a1.1', 'a-1.1', 'a--1--2--b.1', '0.a', '01.a', '012.a',
    '1a.a', '1-a.a', '1--a--b--2', '0.1', '01.1', '012.1', '1a.1', '1-a.1', '1--a--b--2.1', 'a.b.c.d.e', 'aa.bb.cc.dd.ee',
    '1.2.3.4.5', '11.22.33.44.55', 'a'.repeat(253),
  ];
  for (const v of good) assert.deepEqual(isDNS1123Subdomain(v), [], v);
  const bad = [
    '', 'A', 'ABC', 'aBc', 'A1', 'A-1', '1-A', '-', 'a-', '-a', '1-', '-1', '_', 'a_', '_a', 'a_b', '1_', '_1', '1_2',
    '.', 'a.', '.a', 'a..b', '1.', '.1', '1..2', ' ', 'a ', ' a', 'a b', '1 ', ' 1', '1 2', 'A.a', 'aB.a', 'ab.A',
    'A1.a', 'a1.A', 'A.1', 'aB.1', 'A1.1', '1A.1', '0.A', '01.A', '012.A', '1A.a', '1a.A', 'A.B.C.D.E',
    'AA.BB.CC.DD.EE', 'a.B.c.d.e', 'aa.bB.cc.dd.ee', 'a@b', 'a,b', 'a_b', 'a;b', 'a:b', 'a%b', 'a?b', 'a$b',
    'a'.repeat(254),
  ];
  for (const v of bad) assert.notDeepEqual(isDNS1123Subdomain(v), [], JSON.stringify(v));
});

void test('taint strings: key=value:Effect, key:Effect, and key=:Effect for an empty value', () => {
  const r = new ConfigReader();
  const p = Path.root('t');
  assert.deepEqual(r.taintString('os=windows:NoSchedule', p), { key: 'os', value: 'windows', effect: 'NoSchedule' });
  assert.deepEqual(r.taintString('dedicated:NoExecute', p), { key: 'dedicated', effect: 'NoExecute' });
  assert.deepEqual(r.taintString('example.com/gpu=:PreferNoSchedule', p), { key: 'example.com/gpu', effect: 'PreferNoSchedule' });
  assert.deepEqual(r.problems, []);
});

void test('bad taint strings are reported with the part that is wrong', () => {
  const r = new ConfigReader();
  const p = Path.root('t');
  assert.equal(r.taintString('=v:NoSchedule', p.index(0)), undefined);
  assert.equal(r.taintString('k=a b:NoSchedule', p.index(1)), undefined);
  assert.equal(r.taintString(':NoSchedule', p.index(2)), undefined);
  assert.equal(r.taintString('k=v:', p.index(3)), undefined);
  assert.deepEqual(r.problems.map(problemString), [
    't[0].key: Invalid value: "": name part must be non-empty',
    "t[1].value: Invalid value: \"a b\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    't[2]: Invalid value: ":NoSchedule": must be of the form key=value:Effect or key:Effect',
    't[3].effect: Required value',
  ]);
});

void test('formatTaint writes kubectl form', () => {
  assert.equal(formatTaint({ key: 'os', value: 'windows', effect: 'NoSchedule' }), 'os=windows:NoSchedule');
  assert.equal(formatTaint({ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }), 'node-role.kubernetes.io/control-plane:NoSchedule');
});

void test('unknown fields are reported in document order with their path', () => {
  const r = new ConfigReader();
  r.unknownFields({ name: 'a', cnt: 1, zz: 2 }, Path.root('nodeGroups').index(0), new Set(['name']));
  r.unknownFields({ spec: {} }, undefined, new Set(['kind']));
  assert.deepEqual(r.problems.map(problemString), [
    'nodeGroups[0].cnt: unknown field',
    'nodeGroups[0].zz: unknown field',
    'spec: unknown field',
  ]);
});
