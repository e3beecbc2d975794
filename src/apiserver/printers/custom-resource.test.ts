import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonPathFirst, printCustomResourceTable } from './custom-resource.js';
import type { KubeObject } from './printers.js';

const now = Date.parse('2026-11-22T12:00:00Z');
const widget: KubeObject = {
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w1', creationTimestamp: '2026-11-22T11:55:00Z', labels: { 'app.kubernetes.io/name': 'demo' } },
  spec: { replicas: 3, size: 1.5, enabled: true, selector: { a: 'b' }, containers: [{ name: 'c', image: 'nginx' }] },
  status: { conditions: [{ type: 'Progressing', status: 'True' }, { type: 'Ready', status: 'False' }] },
};

const pathCases: Array<[string, unknown]> = [
  ['.spec.replicas', 3],
  ['{.spec.replicas}', 3],
  ['.spec.containers[0].image', 'nginx'],
  ['.spec.containers[*].name', 'c'],
  ['.status.conditions[?(@.type=="Ready")].status', 'False'],
  ['.metadata.labels.app\\.kubernetes\\.io/name', 'demo'],
  [".metadata.labels['app.kubernetes.io/name']", 'demo'],
  ['.spec.missing', undefined],
];
for (const [path, want] of pathCases) {
  void test(`JSONPath ${path}`, () => assert.deepEqual(jsonPathFirst(widget, path), want));
}

void test('a CRD version without printer columns gets Name and the Age date column', () => {
  const t = printCustomResourceTable(undefined, [widget], { includeObject: 'Metadata', now });
  assert.deepEqual(t.columnDefinitions.map((c) => [c.name, c.type, c.format, c.priority]), [['Name', 'string', 'name', 0], ['Age', 'date', '', 0]]);
  assert.deepEqual(t.rows[0]?.cells, ['w1', '5m']);
  assert.deepEqual(t.rows[0]?.object, { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: widget.metadata });
});

void test('additionalPrinterColumns: typed cells, null when missing or of another type', () => {
  const t = printCustomResourceTable(
    [
      { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
      { name: 'Size', type: 'number', jsonPath: '.spec.size', priority: 1 },
      { name: 'Enabled', type: 'boolean', jsonPath: '.spec.enabled' },
      { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status', description: 'Readiness' },
      { name: 'Selector', type: 'string', jsonPath: '.spec.selector' },
      { name: 'Missing', type: 'string', jsonPath: '.spec.nothing' },
      { name: 'Wrong', type: 'integer', jsonPath: '.metadata.name' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
    [widget],
    { includeObject: 'None', now },
  );
  assert.deepEqual(t.columnDefinitions[2], { name: 'Size', type: 'number', format: '', description: '', priority: 1 });
  assert.deepEqual(t.rows[0]?.cells, ['w1', 3, 1.5, true, 'False', '{"a":"b"}', null, null, '5m']);
  assert.equal(t.rows[0]?.object, null);
});
