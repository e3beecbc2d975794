/**
 * metadata.generation per kind (each strategy's PrepareForUpdate), the DaemonSet's templateGeneration
 * (pkg/registry/apps/daemonset/strategy.go, pkg/apis/apps/v1/conversion.go) and autoscaling/v2's dropping
 * of the v1 round-trip annotations (pkg/apis/autoscaling/v2/conversion.go): first the strategy functions,
 * then through a store with managed fields, as requests reach it.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../api/errors.js';
import type { ResourceDef } from '../discovery/resource-defs.js';
import type { StoredObject } from '../storage/watch-cache.js';
import { conditionsAnnotation, metricSpecsAnnotation } from './hpa-conversion.js';
import type { ConvertingStore } from './converting-store.js';
import { adminCtx, def, openStrategyStore, type StrategyStore } from './_strategy-store.test-helpers.js';
import {
  bumpsGeneration,
  convertRequestObject,
  internalMetadata,
  parseInt64,
  prepareForCreate,
  prepareForUpdate,
  semanticDeepEqual,
  templateGenerationAnnotation,
  tracksGeneration,
} from './strategy.js';


const deployments = def('apps', 'v1', 'deployments');
const replicaSets = def('apps', 'v1', 'replicasets');
const daemonSets = def('apps', 'v1', 'daemonsets');
const networkPolicies = def('networking.k8s.io', 'v1', 'networkpolicies');
const webhooks = def('admissionregistration.k8s.io', 'v1', 'validatingwebhookconfigurations');
const hpaV1 = def('autoscaling', 'v1', 'horizontalpodautoscalers');
const hpaV2 = def('autoscaling', 'v2', 'horizontalpodautoscalers');
/** A custom resource without a status subresource. */
const widgets: ResourceDef = { ...replicaSets, group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget', custom: true, subresources: new Map() };

const selector = { matchLabels: { app: 'agent' } };
const template = (image: string): Record<string, unknown> => ({ metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'a', image }] } });

function obj(kind: string, spec: Record<string, unknown>, annotations?: Record<string, string>): StoredObject {
  return { kind, metadata: { name: 'x', namespace: 'default', ...(annotations !== undefined ? { annotations } : {}) }, spec };
}

describe('bumpsGeneration: which updates each strategy counts as a new generation', () => {
  const cases: { name: string; def: ResourceDef; old: StoredObject; next: StoredObject; want: boolean }[] = [
    {
      name: 'the same Deployment spec with its keys in another order is no new generation (Semantic.DeepEqual has no key order)',
      def: deployments,
      old: obj('Deployment', { replicas: 1, selector, template: template('nginx') }),
      next: obj('Deployment', { template: template('nginx'), selector, replicas: 1 }),
      want: false,
    },
    {
      name: 'a Deployment spec change bumps the generation',
      def: deployments,
      old: obj('Deployment', { replicas: 1, selector, template: template('nginx') }),
      next: obj('Deployment', { replicas: 2, selector, template: template('nginx') }),
      want: true,
    },
    {
      name: 'annotation updates bump a Deployment\'s generation because annotations are copied to its replica sets',
      def: deployments,
      old: obj('Deployment', { replicas: 1, selector, template: template('nginx') }, { a: '1' }),
      next: obj('Deployment', { replicas: 1, selector, template: template('nginx') }, { a: '2' }),
      want: true,
    },
    {
      name: 'an empty annotation map is no annotation (nil and empty maps are semantically equal)',
      def: deployments,
      old: obj('Deployment', { replicas: 1, selector, template: template('nginx') }),
      next: obj('Deployment', { replicas: 1, selector, template: template('nginx') }, {}),
      want: false,
    },
    {
      name: 'a ReplicaSet annotation change is no new generation',
      def: replicaSets,
      old: obj('ReplicaSet', { replicas: 1, selector, template: template('nginx') }, { a: '1' }),
      next: obj('ReplicaSet', { replicas: 1, selector, template: template('nginx') }, { a: '2' }),
      want: false,
    },
    {
      name: 'a ReplicaSet spec with an empty list or null where the old had nothing is the same spec',
      def: replicaSets,
      old: obj('ReplicaSet', { replicas: 1, selector, template: template('nginx') }),
      next: obj('ReplicaSet', { replicas: 1, selector, template: template('nginx'), minReadySeconds: null, extra: [] }),
      want: false,
    },
    {
      name: 'a NetworkPolicy compares with reflect.DeepEqual: an empty list differs from none',
      def: networkPolicies,
      old: obj('NetworkPolicy', { podSelector: {} }),
      next: obj('NetworkPolicy', { podSelector: {}, ingress: [] }),
      want: true,
    },
    {
      name: 'a NetworkPolicy spec in another key order is no new generation',
      def: networkPolicies,
      old: obj('NetworkPolicy', { podSelector: {}, policyTypes: ['Ingress'] }),
      next: obj('NetworkPolicy', { policyTypes: ['Ingress'], podSelector: {} }),
      want: false,
    },
    {
      name: 'a webhook configuration counts changes to its webhooks',
      def: webhooks,
      old: { kind: 'ValidatingWebhookConfiguration', metadata: { name: 'x' }, webhooks: [{ name: 'a.example.com' }] },
      next: { kind: 'ValidatingWebhookConfiguration', metadata: { name: 'x', labels: { a: 'b' } }, webhooks: [{ name: 'b.example.com' }] },
      want: true,
    },
    {
      name: 'a custom resource without a status subresource counts a status change (everything but metadata)',
      def: widgets,
      old: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'x' }, spec: { size: 1 } },
      next: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'x' }, spec: { size: 1 }, status: { ready: true } },
      want: true,
    },
    {
      name: 'a custom resource in another key order is no new generation',
      def: widgets,
      old: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'x' }, spec: { size: 1, color: 'red' } },
      next: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'x', labels: { a: 'b' } }, spec: { color: 'red', size: 1 } },
      want: false,
    },
  ];
  for (const tc of cases) {
    test(tc.name, () => {
      assert.equal(bumpsGeneration(tc.def, tc.next, tc.old), tc.want);
    });
  }

  test('1.32 HorizontalPodAutoscalers do not track generation (the HPAGeneration gate came later)', () => {
    assert.equal(tracksGeneration(hpaV2), false);
    assert.equal(tracksGeneration(deployments), true);
    assert.equal(tracksGeneration(widgets), true);
  });

  test('semanticDeepEqual: absent, null and [] are equal; {} is not absent', () => {
    assert.equal(semanticDeepEqual({ a: [] }, {}), true);
    assert.equal(semanticDeepEqual({ a: null }, { a: [] }), true);
    assert.equal(semanticDeepEqual({ a: {} }, {}), false);
    assert.equal(semanticDeepEqual([1, 2], [2, 1]), false);
  });
});

describe('DaemonSet templateGeneration (daemonSetStrategy and the apps/v1 conversion)', () => {
  const annotated = (value: string | undefined, image = 'nginx', extra: Record<string, unknown> = {}): StoredObject =>
    obj('DaemonSet', { selector, template: template(image), ...extra }, value === undefined ? undefined : { [templateGenerationAnnotation]: value });
  const tg = (ds: StoredObject): string | undefined => ds.metadata?.annotations?.[templateGenerationAnnotation];

  const decodeCases: { name: string; value: string | undefined; want: string | { error: string } }[] = [
    { name: 'no annotation decodes as templateGeneration 0', value: undefined, want: '0' },
    { name: 'a decimal is kept', value: '5', want: '5' },
    { name: 'a sign and leading zeros are read as ParseInt reads them', value: '+007', want: '7' },
    { name: 'a negative value is read', value: '-3', want: '-3' },
    { name: 'a value that is not a base-10 integer is a conversion error', value: 'abc', want: { error: 'strconv.ParseInt: parsing "abc": invalid syntax' } },
    { name: 'an empty value is a conversion error', value: '', want: { error: 'strconv.ParseInt: parsing "": invalid syntax' } },
    { name: 'a value beyond int64 is a conversion error', value: '9223372036854775808', want: { error: 'strconv.ParseInt: parsing "9223372036854775808": value out of range' } },
  ];
  for (const tc of decodeCases) {
    test(tc.name, () => {
      const ds = annotated(tc.value);
      const err = convertRequestObject(daemonSets, ds);
      if (typeof tc.want === 'string') {
        assert.equal(err, undefined);
        assert.equal(tg(ds), tc.want);
      } else {
        assert.equal(err, tc.want.error);
      }
    });
  }

  const createCases: { name: string; value: string; want: string }[] = [
    { name: 'PrepareForCreate raises templateGeneration 0 to 1', value: '0', want: '1' },
    { name: 'PrepareForCreate raises a negative templateGeneration to 1', value: '-3', want: '1' },
    { name: 'PrepareForCreate keeps a templateGeneration of at least 1', value: '5', want: '5' },
  ];
  for (const tc of createCases) {
    test(tc.name, () => {
      const ds = annotated(tc.value);
      prepareForCreate(daemonSets, ds);
      assert.equal(tg(ds), tc.want);
      assert.deepEqual(ds['status'], {});
    });
  }

  const updateCases: { name: string; old: StoredObject; next: StoredObject; wantTemplateGeneration: string; wantBump: boolean }[] = [
    {
      name: 'a template change increments templateGeneration and generation',
      old: annotated('2'),
      next: annotated('2', 'nginx:2'),
      wantTemplateGeneration: '3',
      wantBump: true,
    },
    {
      name: 'update is not allowed to set templateGeneration',
      old: annotated('2'),
      next: annotated('9'),
      wantTemplateGeneration: '2',
      wantBump: false,
    },
    {
      name: 'a spec change outside the template bumps generation only',
      old: annotated('2'),
      next: annotated('0', 'nginx', { minReadySeconds: 5 }),
      wantTemplateGeneration: '2',
      wantBump: true,
    },
  ];
  for (const tc of updateCases) {
    test(tc.name, () => {
      const next = prepareForUpdate(daemonSets, tc.next, tc.old, '');
      assert.equal(tg(next), tc.wantTemplateGeneration);
      assert.equal(bumpsGeneration(daemonSets, next, tc.old), tc.wantBump);
    });
  }

  test('Tables and PartialObjectMetadata show the internal metadata, without the annotation', () => {
    const md = { name: 'x', annotations: { [templateGenerationAnnotation]: '1', a: 'b' } };
    assert.deepEqual(internalMetadata('apps', 'daemonsets', md), { name: 'x', annotations: { a: 'b' } });
    assert.deepEqual(internalMetadata('apps', 'daemonsets', { name: 'x', annotations: { [templateGenerationAnnotation]: '1' } }), { name: 'x' });
    assert.equal(internalMetadata('apps', 'deployments', md), md);
  });

  test('parseInt64 reads the int64 bounds', () => {
    assert.deepEqual(parseInt64('-9223372036854775808'), { value: -(2n ** 63n) });
    assert.deepEqual(parseInt64('9223372036854775807'), { value: 2n ** 63n - 1n });
  });
});

describe('autoscaling/v2 drops the v1 round-trip annotations on the way in', () => {
  test('a v2 object loses them; a v1 object keeps them for its own conversion', () => {
    const annotations = { [metricSpecsAnnotation]: '[]', [conditionsAnnotation]: '[]', keep: 'me' };
    const v2: StoredObject = { metadata: { name: 'x', annotations: { ...annotations } }, spec: {} };
    convertRequestObject(hpaV2, v2);
    assert.deepEqual(v2.metadata?.annotations, { keep: 'me' });
    const only: StoredObject = { metadata: { name: 'x', annotations: { [metricSpecsAnnotation]: '[]' } }, spec: {} };
    convertRequestObject(hpaV2, only);
    assert.equal(only.metadata?.annotations, undefined);
    const v1: StoredObject = { metadata: { name: 'x', annotations: { ...annotations } }, spec: {} };
    convertRequestObject(hpaV1, v1);
    assert.deepEqual(v1.metadata?.annotations, annotations);
  });
});

describe('through the store: generation, templateGeneration, managed fields and HPA annotations', () => {
  let opened: StrategyStore;
  let store: ConvertingStore;
  const ctx = adminCtx;

  before(async () => {
    opened = await openStrategyStore('kubemix-strategy-generation-');
    store = opened.store;
  });
  after(() => opened.close());

  const newDaemonSet = (name: string, annotations?: Record<string, string>): StoredObject => ({
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name, ...(annotations !== undefined ? { annotations } : {}) },
    spec: { selector, template: template('nginx') },
  });

  test('a created DaemonSet reads templateGeneration 1, and its creator owns the annotation (conversion wrote it)', async () => {
    const created = await store.create(daemonSets, 'default', newDaemonSet('agent', { 'kubectl.kubernetes.io/last-applied-configuration': '{}' }), ctx('kubectl-client-side-apply'));
    assert.equal(created.metadata?.generation, 1);
    assert.equal(created.metadata?.annotations?.[templateGenerationAnnotation], '1');
    const entry = (created.metadata?.managedFields ?? []).find((m) => m.manager === 'kubectl-client-side-apply');
    assert.deepEqual((entry?.fieldsV1 as { 'f:metadata'?: unknown } | undefined)?.['f:metadata'], {
      'f:annotations': { '.': {}, [`f:${templateGenerationAnnotation}`]: {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} },
    });
  });

  test('a client-sent templateGeneration of 5 is kept on create', async () => {
    const created = await store.create(daemonSets, 'default', newDaemonSet('five', { [templateGenerationAnnotation]: '5' }), ctx('test'));
    assert.equal(created.metadata?.annotations?.[templateGenerationAnnotation], '5');
  });

  test('an unparsable annotation is the decoder\'s 400', async () => {
    await assert.rejects(store.create(daemonSets, 'default', newDaemonSet('bad', { [templateGenerationAnnotation]: 'abc' }), ctx('test')), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.code, 400);
      assert.equal(e.reason, 'BadRequest');
      assert.equal(e.message, 'DaemonSet in version "v1" cannot be handled as a DaemonSet: strconv.ParseInt: parsing "abc": invalid syntax');
      return true;
    });
  });

  test('a PUT without the annotation and the spec in another key order changes neither generation', async () => {
    const live = await store.get(daemonSets, 'default', 'agent');
    const spec = { template: template('nginx'), selector, ...(live['spec'] as Record<string, unknown>) };
    const { object } = await store.update(daemonSets, 'default', 'agent', '', { ...live, metadata: { ...live.metadata, annotations: {} }, spec }, ctx('test'));
    assert.equal(object.metadata?.generation, 1);
    assert.equal(object.metadata?.annotations?.[templateGenerationAnnotation], '1');
  });

  test('a template change moves generation and templateGeneration to 2, whatever templateGeneration the client sent', async () => {
    const live = await store.get(daemonSets, 'default', 'agent');
    const spec = { ...(live['spec'] as Record<string, unknown>), template: template('nginx:2') };
    const { object } = await store.update(daemonSets, 'default', 'agent', '', { ...live, metadata: { ...live.metadata, annotations: { [templateGenerationAnnotation]: '9' } }, spec }, ctx('test'));
    assert.equal(object.metadata?.generation, 2);
    assert.equal(object.metadata?.annotations?.[templateGenerationAnnotation], '2');
  });

  test('a Deployment: a reordered spec is no new generation; an annotation change is', async () => {
    const created = await store.create(deployments, 'default', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { selector, template: template('nginx') } }, ctx('test'));
    assert.equal(created.metadata?.generation, 1);
    const reordered = { ...created, spec: Object.fromEntries(Object.entries(created['spec'] as Record<string, unknown>).reverse()) };
    const same = await store.update(deployments, 'default', 'web', '', reordered, ctx('test'));
    assert.equal(same.object.metadata?.generation, 1);
    const annotated = await store.update(deployments, 'default', 'web', '', { ...same.object, metadata: { ...same.object.metadata, annotations: { note: 'x' } } }, ctx('test'));
    assert.equal(annotated.object.metadata?.generation, 2);
  });

  test('an autoscaling/v2 HPA cannot store the v1 round-trip annotations (create, update, status); it has no generation', async () => {
    const scaleTargetRef = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
    const roundTrip = { [metricSpecsAnnotation]: '[]', [conditionsAnnotation]: '[]' };
    const created = await store.create(hpaV2, 'default', { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web', annotations: { ...roundTrip, keep: 'me' } }, spec: { scaleTargetRef, maxReplicas: 3 } }, ctx('test'));
    assert.deepEqual(created.metadata?.annotations, { keep: 'me' });
    assert.equal(created.metadata?.generation, undefined);
    const updated = await store.update(hpaV2, 'default', 'web', '', { ...created, metadata: { ...created.metadata, annotations: { ...roundTrip, keep: 'me' } } }, ctx('test'));
    assert.deepEqual(updated.object.metadata?.annotations, { keep: 'me' });
    const status = await store.update(hpaV2, 'default', 'web', 'status', { ...updated.object, metadata: { ...updated.object.metadata, annotations: { ...roundTrip, keep: 'me' } }, status: { currentReplicas: 1, desiredReplicas: 1 } }, ctx('test'));
    assert.deepEqual(status.object.metadata?.annotations, { keep: 'me' });
    // The v1 form still carries what v1 cannot express as annotations, computed from the v2 object.
    const asV1 = await store.get(hpaV1, 'default', 'web');
    assert.equal(asV1.metadata?.annotations?.['keep'], 'me');
  });
});
