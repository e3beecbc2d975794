import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DaemonSet, Deployment, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { Job } from 'kubernetes-types/batch/v1.js';
import { apiErrors } from '../../api/errors.js';
import { aggregateMessage, fieldErrorString } from '../../api/field-errors.js';
import { defaultDaemonSet, defaultDeployment, defaultJob, defaultStatefulSet } from './defaults.js';
import { validate } from './index.js';

function deployment(name: string, selector: Deployment['spec'] extends infer S ? (S extends { selector: infer L } ? L | undefined : never) : never, labels: Record<string, string>): Deployment {
  const d: Deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: { template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } as NonNullable<Deployment['spec']>,
  };
  if (selector !== undefined && d.spec !== undefined) d.spec.selector = selector;
  defaultDeployment(d);
  return d;
}

test('Deployment without a selector: the 422 of a real 1.32 API server, field for field', () => {
  // shared/fixtures/apiserver-1.32/errors/422-invalid.json
  const fixture = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message:
      'Deployment.apps "nosel" is invalid: [spec.selector: Required value, spec.template.metadata.labels: Invalid value: map[string]string{"app":"x"}: `selector` does not match template `labels`]',
    reason: 'Invalid',
    details: {
      name: 'nosel',
      group: 'apps',
      kind: 'Deployment',
      causes: [
        { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.selector' },
        { reason: 'FieldValueInvalid', message: 'Invalid value: map[string]string{"app":"x"}: `selector` does not match template `labels`', field: 'spec.template.metadata.labels' },
      ],
    },
    code: 422,
  };
  const d = deployment('nosel', undefined, { app: 'x' });
  const errs = validate({ group: 'apps', kind: 'Deployment' }, d);
  assert.deepEqual(apiErrors.invalid({ group: 'apps', kind: 'Deployment' }, 'nosel', errs).toStatus(), fixture);
});

test('Deployment: a matching selector validates after defaulting', () => {
  assert.deepEqual(validate({ group: 'apps', kind: 'Deployment' }, deployment('web', { matchLabels: { app: 'web' } }, { app: 'web' })), []);
});

test('Deployment: selector mismatch, empty selector, negative replicas, strategy', () => {
  const d = deployment('web', { matchLabels: { app: 'other' } }, { app: 'web' });
  if (d.spec !== undefined) {
    d.spec.replicas = -1;
    d.spec.strategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } };
  }
  assert.deepEqual(validate({ group: 'apps', kind: 'Deployment' }, d).map(fieldErrorString), [
    'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
    'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:""}: may not be 0 when `maxSurge` is 0',
  ]);
  const empty = deployment('web', {}, { app: 'web' });
  assert.deepEqual(validate({ group: 'apps', kind: 'Deployment' }, empty).map(fieldErrorString), [
    'spec.selector: Invalid value: &v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment',
  ]);
});

test('Deployment: template restartPolicy must be Always; percentages are checked', () => {
  const d = deployment('web', { matchLabels: { app: 'web' } }, { app: 'web' });
  if (d.spec?.template.spec !== undefined) d.spec.template.spec.restartPolicy = 'Never';
  if (d.spec?.strategy?.rollingUpdate !== undefined) d.spec.strategy.rollingUpdate.maxSurge = '150';
  assert.deepEqual(validate({ group: 'apps', kind: 'Deployment' }, d).map(fieldErrorString), [
    'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
    "spec.strategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:\"150\"}: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
  ]);
});

test('Deployment update: the selector is immutable in apps/v1', () => {
  const old = deployment('web', { matchLabels: { app: 'web' } }, { app: 'web' });
  const cur = deployment('web', { matchLabels: { app: 'web2' } }, { app: 'web2' });
  assert.equal(
    aggregateMessage(validate({ group: 'apps', kind: 'Deployment' }, cur, old)),
    'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web2"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
  );
});

test('Deployment: metadata name must be a DNS subdomain', () => {
  const d = deployment('Bad_Name', { matchLabels: { app: 'web' } }, { app: 'web' });
  assert.equal(
    aggregateMessage(validate({ group: 'apps', kind: 'Deployment' }, d)),
    "metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
  );
});

test('DaemonSet: selector/labels mismatch, update strategy rules', () => {
  const ds: DaemonSet = {
    metadata: { name: 'ds', namespace: 'kube-system' },
    spec: { selector: { matchLabels: { app: 'a' } }, template: { metadata: { labels: { app: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
  };
  defaultDaemonSet(ds);
  if (ds.spec?.updateStrategy?.rollingUpdate !== undefined) ds.spec.updateStrategy.rollingUpdate.maxSurge = 1;
  assert.deepEqual(validate({ group: 'apps', kind: 'DaemonSet' }, ds).map(fieldErrorString), [
    'spec.template.metadata.labels: Invalid value: map[string]string{"app":"b"}: `selector` does not match template `labels`',
    'spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:0, IntVal:1, StrVal:""}: may not be set when maxUnavailable is non-zero',
  ]);
});

test('StatefulSet: volumeClaimTemplates provide volumes; forbidden spec updates', () => {
  const sts: StatefulSet = {
    metadata: { name: 'db', namespace: 'default' },
    spec: {
      serviceName: 'db',
      selector: { matchLabels: { app: 'db' } },
      template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'c', image: 'i', volumeMounts: [{ name: 'data', mountPath: '/data' }] }] } },
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
    },
  };
  defaultStatefulSet(sts);
  assert.deepEqual(validate({ group: 'apps', kind: 'StatefulSet' }, sts), []);
  const cur = structuredClone(sts);
  if (cur.spec !== undefined) cur.spec.serviceName = 'other';
  assert.equal(
    aggregateMessage(validate({ group: 'apps', kind: 'StatefulSet' }, cur, sts)),
    "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
  );
});

test('Job: the selector is generated from the UID, and restartPolicy must be OnFailure or Never', () => {
  const job: Job = { metadata: { name: 'pi', namespace: 'default', uid: 'u-1' }, spec: { template: { spec: { containers: [{ name: 'pi', image: 'perl' }], restartPolicy: 'Never' } } } };
  defaultJob(job);
  assert.deepEqual(validate({ group: 'batch', kind: 'Job' }, job), []);
  assert.deepEqual(job.spec?.selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': 'u-1' } });
  assert.deepEqual(job.spec?.template.metadata?.labels, {
    'job-name': 'pi',
    'batch.kubernetes.io/job-name': 'pi',
    'controller-uid': 'u-1',
    'batch.kubernetes.io/controller-uid': 'u-1',
  });
  const bad: Job = { metadata: { name: 'x', namespace: 'default', uid: 'u-2' }, spec: { template: { spec: { containers: [{ name: 'c', image: 'i' }] } } } };
  defaultJob(bad);
  assert.equal(aggregateMessage(validate({ group: 'batch', kind: 'Job' }, bad)), 'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"');
});
