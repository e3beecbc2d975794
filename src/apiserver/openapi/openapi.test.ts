import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { OpenApi } from './openapi.js';
import { filterSwagger, v3PathOfFile } from './generate-data.js';
import { isServedV3Path } from './served.js';

const api = new OpenApi();
const deployment = { group: 'apps', version: 'v1', kind: 'Deployment' };
const pod = { group: '', version: 'v1', kind: 'Pod' };

void test('/openapi/v2 serves the GA groups only, with every $ref resolvable', () => {
  const doc = JSON.parse(api.openapiV2().toString('utf8')) as { paths: Record<string, unknown>; definitions: Record<string, unknown> };
  assert.ok(doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments']);
  assert.ok(doc.paths['/apis/node.k8s.io/v1/runtimeclasses']);
  assert.equal(doc.paths['/apis/node.k8s.io/v1beta1/runtimeclasses'], undefined);
  assert.ok(!Object.keys(doc.paths).some((p) => /\/v\d+(alpha|beta)\d+\//.test(p) || p.startsWith('/apis/resource.k8s.io')));
  assert.ok(!Object.keys(doc.definitions).some((d) => /\.v\d+(alpha|beta)\d+\./.test(d)));
  const refs = JSON.stringify(doc).match(/"\$ref":"#\/definitions\/[^"]+"/g) ?? [];
  for (const r of new Set(refs)) {
    const name = r.slice('"$ref":"#/definitions/'.length, -1);
    assert.ok(doc.definitions[name], `dangling ${name}`);
  }
});

void test('/openapi/v3 lists the same documents as a real 1.32 server (GA groups)', () => {
  const real = JSON.parse(readFileSync(new URL('../../../../src/apiserver/openapi/testdata/openapi-v3-root-1.32.json', import.meta.url), 'utf8')) as {
    paths: Record<string, unknown>;
  };
  const want = Object.keys(real.paths).filter((p) => p !== '.well-known/openid-configuration').sort();
  const got = Object.keys(api.openapiV3Paths().paths).sort();
  assert.deepEqual(got, want);
});

void test('/openapi/v3 hashes are the upper-case SHA-512 of the served bytes', () => {
  const url = api.openapiV3Paths().paths['apis/apps/v1']?.serverRelativeURL ?? '';
  assert.match(url, /^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]{128}$/);
  const doc = api.openapiV3Doc('apis/apps/v1');
  assert.ok(doc);
  const parsed = JSON.parse(doc.toString('utf8')) as { openapi: string; components: { schemas: Record<string, unknown> } };
  assert.equal(parsed.openapi, '3.0.0');
  assert.ok(parsed.components.schemas['io.k8s.api.apps.v1.Deployment']);
  assert.equal(api.openapiV3Doc('apis/node.k8s.io/v1beta1'), undefined);
  assert.equal(api.openapiV3Doc('../../etc/passwd'), undefined);
});

void test('schemaFor finds a kind by GroupVersionKind', () => {
  assert.equal(api.definitionNameFor(deployment), 'io.k8s.api.apps.v1.Deployment');
  assert.equal(api.definitionNameFor(pod), 'io.k8s.api.core.v1.Pod');
  assert.equal(api.definitionNameFor({ group: 'node.k8s.io', version: 'v1', kind: 'RuntimeClass' }), 'io.k8s.api.node.v1.RuntimeClass');
  assert.equal(api.schemaFor({ group: 'node.k8s.io', version: 'v1beta1', kind: 'RuntimeClass' }), undefined);
  assert.ok(api.schemaFor(deployment)?.properties?.['spec']);
});

const metaCases: Array<{ name: string; gvk: typeof pod; path: string[]; want: unknown }> = [
  { name: 'containers merge by name, list-map keyed by name', gvk: pod, path: ['spec', 'containers'], want: { patchMergeKey: 'name', patchStrategy: 'merge', listType: 'map', listMapKeys: ['name'] } },
  { name: 'container ports merge by containerPort, list-map keyed by containerPort and protocol', gvk: pod, path: ['spec', 'containers', '[]', 'ports'], want: { patchMergeKey: 'containerPort', patchStrategy: 'merge', listType: 'map', listMapKeys: ['containerPort', 'protocol'] } },
  { name: 'env merges by name', gvk: deployment, path: ['spec', 'template', 'spec', 'containers', '[]', 'env'], want: { patchMergeKey: 'name', patchStrategy: 'merge', listType: 'map', listMapKeys: ['name'] } },
  { name: 'volumes merge by name with retainKeys', gvk: pod, path: ['spec', 'volumes'], want: { patchMergeKey: 'name', patchStrategy: 'merge,retainKeys', listType: 'map', listMapKeys: ['name'] } },
  { name: 'tolerations are atomic: no merge key', gvk: pod, path: ['spec', 'tolerations'], want: { listType: 'atomic' } },
  { name: 'finalizers are a set merged as primitives', gvk: pod, path: ['metadata', 'finalizers'], want: { patchStrategy: 'merge', listType: 'set' } },
  { name: 'ownerReferences merge by uid', gvk: pod, path: ['metadata', 'ownerReferences'], want: { patchMergeKey: 'uid', patchStrategy: 'merge', listType: 'map', listMapKeys: ['uid'] } },
  { name: 'deployment strategy retains keys', gvk: deployment, path: ['spec', 'strategy'], want: { patchStrategy: 'retainKeys' } },
  { name: 'selector is an atomic map', gvk: deployment, path: ['spec', 'selector'], want: { mapType: 'atomic' } },
];
for (const tc of metaCases) {
  void test(`typeMetaAt: ${tc.name}`, () => assert.deepEqual(api.typeMetaAt(tc.gvk, tc.path), tc.want));
}

void test('the generator keeps GA documents and cuts alpha/beta ones', () => {
  assert.equal(v3PathOfFile('apis__node.k8s.io__v1_openapi.json'), 'apis/node.k8s.io/v1');
  assert.ok(isServedV3Path('apis/node.k8s.io/v1'));
  assert.ok(!isServedV3Path('apis/node.k8s.io/v1beta1'));
  assert.ok(!isServedV3Path('apis/resource.k8s.io'));
  const cut = filterSwagger({
    paths: { '/api/v1/pods': {}, '/apis/storage.k8s.io/v1beta1/x': {} },
    definitions: {
      'io.k8s.api.storage.v1beta1.X': {},
      'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions': {
        'x-kubernetes-group-version-kind': [
          { group: '', kind: 'DeleteOptions', version: 'v1' },
          { group: 'resource.k8s.io', kind: 'DeleteOptions', version: 'v1alpha3' },
        ],
      },
    },
  });
  assert.deepEqual(cut, {
    paths: { '/api/v1/pods': {} },
    definitions: { 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions': { 'x-kubernetes-group-version-kind': [{ group: '', kind: 'DeleteOptions', version: 'v1' }] } },
  });
});

void test('documents load lazily and are parsed once', () => {
  const fresh = new OpenApi();
  const a = fresh.openapiV2();
  assert.equal(fresh.openapiV2(), a);
  assert.equal(fresh.openapiV3Doc('api/v1'), fresh.openapiV3Doc('/api/v1/'));
});
