/**
 * PodSecurity admission as `k8s.io/pod-security-admission/admission/admission_test.go` and the kube-apiserver
 * plugin exercise it: namespace label validation and the check of existing pods, enforce/audit/warn on pods,
 * warn/audit only on workload resources, exemptions and the exempt updates.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Namespace, Pod, PodSpec } from 'kubernetes-types/core/v1.js';
import { ApiError } from '../../api/errors.js';
import { resources, type ResourceType } from '../../api/resources.js';
import type { KubeObject } from '../../client/client.js';
import { attrs, fakeLookup } from '../_testing.js';
import type { AdmissionAttributes, AdmissionLookup } from '../types.js';
import { latestVersion, Level, minorVersion } from './_api.js';
import { create, isSignificantPodUpdate, type PodSecurityOptions } from './pod-security.js';

const ENFORCE = 'pod-security.kubernetes.io/enforce';
const ENFORCE_VERSION = 'pod-security.kubernetes.io/enforce-version';
const AUDIT = 'pod-security.kubernetes.io/audit';
const WARN = 'pod-security.kubernetes.io/warn';
const WARN_VERSION = 'pod-security.kubernetes.io/warn-version';

const ns = (name: string, labels: Record<string, string> = {}): Namespace => ({ metadata: { name, labels }, status: { phase: 'Active' } });

/** A pod that violates restricted (not baseline): one container without a security context. */
const plainPod = (name = 'test-pod', namespace = 'test', extra: Partial<PodSpec> = {}): Pod => ({
  metadata: { name, namespace },
  spec: { containers: [{ name: 'c', image: 'nginx:1.27' }], ...extra },
});

/** A pod that violates baseline: privileged, on the host network. */
const privilegedPod = (name = 'test-pod', namespace = 'test'): Pod => ({
  metadata: { name, namespace },
  spec: { hostNetwork: true, containers: [{ name: 'c', image: 'nginx:1.27', securityContext: { privileged: true } }] },
});

const restrictedPod = (name = 'test-pod', namespace = 'test'): Pod => ({
  metadata: { name, namespace },
  spec: {
    securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
    containers: [{ name: 'c', image: 'nginx:1.27', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }],
  },
});

const restrictedDetail =
  'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")';
const baselineDetail = 'host namespaces (hostNetwork=true), privileged (container "c" must not set securityContext.privileged=true)';

/** Attributes with a warnings sink, as the API server builds them. */
function withWarnings(a: AdmissionAttributes): AdmissionAttributes & { warnings: string[] } {
  return { ...a, warnings: [] };
}

function lookupWith(namespaces: Namespace[], pods: Pod[] = []): AdmissionLookup & { listed: string[] } {
  const listed: string[] = [];
  return {
    ...fakeLookup({ namespaces, pods }),
    listed,
    listPods: async (namespace) => {
      listed.push(namespace);
      return pods.filter((p) => p.metadata?.namespace === namespace);
    },
  };
}

async function refusal(p: Promise<void>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof ApiError, String(e));
    return e;
  }
  assert.fail('expected a refusal');
}

// ---- namespaces (TestValidateNamespace) ---------------------------------------------------------------------

interface NamespaceCase {
  name: string;
  opts?: PodSecurityOptions;
  newLabels: Record<string, string>;
  /** Present: an UPDATE from these labels; absent: a CREATE. */
  oldLabels?: Record<string, string>;
  pods?: Pod[];
  expectError?: string;
  expectListPods?: boolean;
  expectWarnings?: string[];
}

const runtimeClassPods = (): Pod[] => [
  plainPod('noruntimeclasspod'),
  plainPod('runtimeclass1pod', 'test', { runtimeClassName: 'runtimeclass1' }),
  plainPod('runtimeclass2pod', 'test', { runtimeClassName: 'runtimeclass2' }),
];
const restrictedReasons = 'allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile';
const existing = (lv: string): string => `existing pods in namespace "test" violate the new PodSecurity enforce level "${lv}"`;

const namespaceCases: NamespaceCase[] = [
  // creation tests, just validate labels
  { name: 'create privileged', newLabels: { [ENFORCE]: 'privileged', [ENFORCE_VERSION]: 'v1.0' } },
  { name: 'create baseline', newLabels: { [ENFORCE]: 'baseline' } },
  { name: 'create restricted', newLabels: { [ENFORCE]: 'restricted' } },
  {
    name: 'create malformed level',
    newLabels: { [ENFORCE]: 'unknown' },
    expectError: 'Namespace "test" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "unknown": must be one of privileged, baseline, restricted',
  },
  {
    name: 'create malformed version',
    newLabels: { [ENFORCE]: 'privileged', [ENFORCE_VERSION]: 'unknown' },
    expectError: 'Namespace "test" is invalid: metadata.labels[pod-security.kubernetes.io/enforce-version]: Invalid value: "unknown": must be "latest" or "v1.x"',
  },
  {
    name: 'create malformed warn level and version',
    newLabels: { [WARN]: 'strict', [WARN_VERSION]: 'v2.0' },
    expectError:
      'Namespace "test" is invalid: [metadata.labels[pod-security.kubernetes.io/warn]: Invalid value: "strict": must be one of privileged, baseline, restricted, metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: "v2.0": must be "latest" or "v1.x"]',
  },

  // update tests that don't tighten effective policy, no pod list/evaluate
  { name: 'update no-op', newLabels: { [ENFORCE]: 'restricted', [ENFORCE_VERSION]: 'v1.0' }, oldLabels: { [ENFORCE]: 'restricted', [ENFORCE_VERSION]: 'v1.0' } },
  { name: 'update no-op malformed level', newLabels: { [ENFORCE]: 'unknown' }, oldLabels: { [ENFORCE]: 'unknown' } },
  { name: 'update no-op malformed version', newLabels: { [ENFORCE]: 'baseline', [ENFORCE_VERSION]: 'unknown' }, oldLabels: { [ENFORCE]: 'baseline', [ENFORCE_VERSION]: 'unknown' } },
  { name: 'update relax level identical version', newLabels: { [ENFORCE]: 'baseline', [ENFORCE_VERSION]: 'v1.0' }, oldLabels: { [ENFORCE]: 'restricted', [ENFORCE_VERSION]: 'v1.0' } },
  { name: 'update relax level explicit latest', newLabels: { [ENFORCE]: 'baseline', [ENFORCE_VERSION]: 'latest' }, oldLabels: { [ENFORCE]: 'restricted', [ENFORCE_VERSION]: 'latest' } },
  { name: 'update relax level implicit latest', newLabels: { [ENFORCE]: 'baseline' }, oldLabels: { [ENFORCE]: 'restricted' } },
  { name: 'update to explicit privileged', newLabels: { [ENFORCE]: 'privileged' }, oldLabels: { [ENFORCE]: 'restricted', [ENFORCE_VERSION]: 'v1.0' } },
  { name: 'update to implicit privileged', newLabels: {}, oldLabels: { [ENFORCE]: 'restricted', [ENFORCE_VERSION]: 'v1.0' } },
  {
    name: 'update exempt to restricted',
    opts: { exemptions: { namespaces: ['test'] } },
    newLabels: { [ENFORCE]: 'restricted', [ENFORCE_VERSION]: 'v1.0' },
    oldLabels: {},
    expectWarnings: ['namespace "test" is exempt from Pod Security, and the policy (enforce=restricted:v1.0) will be ignored'],
  },
  {
    name: 'create exempt with warn and audit',
    opts: { exemptions: { namespaces: ['test'] } },
    newLabels: { [ENFORCE]: 'privileged', [AUDIT]: 'baseline', [WARN]: 'restricted' },
    expectWarnings: ['namespace "test" is exempt from Pod Security, and the policy (audit=baseline:latest, warn=restricted:latest) will be ignored'],
  },
  { name: 'create exempt privileged', opts: { exemptions: { namespaces: ['test'] } }, newLabels: { [ENFORCE]: 'privileged' } },

  // update tests that introduce labels errors
  {
    name: 'update malformed level',
    newLabels: { [ENFORCE]: 'unknown' },
    oldLabels: { [ENFORCE]: 'restricted', [ENFORCE_VERSION]: 'v1.0' },
    expectError: 'Namespace "test" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "unknown": must be one of privileged, baseline, restricted',
  },
  {
    name: 'update malformed version',
    newLabels: { [ENFORCE]: 'privileged', [ENFORCE_VERSION]: 'unknown' },
    oldLabels: { [ENFORCE]: 'restricted', [ENFORCE_VERSION]: 'v1.0' },
    expectError: 'Namespace "test" is invalid: metadata.labels[pod-security.kubernetes.io/enforce-version]: Invalid value: "unknown": must be "latest" or "v1.x"',
  },

  // update tests that tighten effective policy
  {
    name: 'update to implicit restricted',
    opts: { defaults: { enforce: { level: Level.Restricted, version: latestVersion }, audit: { level: Level.Privileged, version: latestVersion }, warn: { level: Level.Privileged, version: latestVersion } } },
    newLabels: {},
    oldLabels: { [ENFORCE]: 'baseline', [ENFORCE_VERSION]: 'v1.0' },
    pods: runtimeClassPods(),
    expectListPods: true,
    expectWarnings: [existing('restricted:latest'), `noruntimeclasspod (and 2 other pods): ${restrictedReasons}`],
  },
  {
    name: 'update with runtimeclass exempt pods',
    opts: { exemptions: { runtimeClasses: ['runtimeclass1'] } },
    newLabels: { [ENFORCE]: 'restricted' },
    oldLabels: { [ENFORCE]: 'baseline' },
    pods: runtimeClassPods(),
    expectListPods: true,
    expectWarnings: [existing('restricted:latest'), `noruntimeclasspod (and 1 other pod): ${restrictedReasons}`],
  },
  {
    name: 'aggregates pods with identical warnings, sorted, named by the lexically first pod',
    newLabels: { [ENFORCE]: 'restricted' },
    oldLabels: {},
    pods: [plainPod('zeta'), privilegedPod('priv'), plainPod('alpha'), restrictedPod('fine'), plainPod('mid')],
    expectListPods: true,
    expectWarnings: [
      existing('restricted:latest'),
      `alpha (and 2 other pods): ${restrictedReasons}`,
      'priv: host namespaces, privileged, allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile',
    ],
  },
  {
    name: 'baseline only reports baseline violations',
    newLabels: { [ENFORCE]: 'baseline' },
    oldLabels: { [ENFORCE]: 'privileged' },
    pods: [plainPod('plain'), privilegedPod('priv')],
    expectListPods: true,
    expectWarnings: [existing('baseline:latest'), 'priv: host namespaces, privileged'],
  },
  { name: 'no warnings when every pod complies', newLabels: { [ENFORCE]: 'restricted' }, oldLabels: {}, pods: [restrictedPod('a')], expectListPods: true, expectWarnings: [] },
  {
    name: 'tightening the version at the same level checks pods',
    newLabels: { [ENFORCE]: 'restricted', [ENFORCE_VERSION]: 'latest' },
    oldLabels: { [ENFORCE]: 'restricted', [ENFORCE_VERSION]: 'v1.0' },
    pods: [plainPod('a')],
    expectListPods: true,
    expectWarnings: [existing('restricted:latest'), `a: ${restrictedReasons}`],
  },
  {
    name: 'bounds the pod count with a warning',
    opts: { namespaceMaxPodsToCheck: 2 },
    newLabels: { [ENFORCE]: 'restricted' },
    oldLabels: {},
    pods: [plainPod('a'), plainPod('b'), plainPod('c')],
    expectListPods: true,
    expectWarnings: ['new PodSecurity enforce level only checked against the first 2 of 3 existing pods', existing('restricted:latest'), `a (and 1 other pod): ${restrictedReasons}`],
  },
  {
    name: 'prioritizes pods from unique controllers',
    opts: { namespaceMaxPodsToCheck: 2 },
    newLabels: { [ENFORCE]: 'baseline' },
    oldLabels: {},
    pods: [
      { ...privilegedPod('rs1-a'), metadata: { name: 'rs1-a', namespace: 'test', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs1', uid: 'u1', controller: true }] } },
      { ...privilegedPod('rs1-b'), metadata: { name: 'rs1-b', namespace: 'test', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs1', uid: 'u1', controller: true }] } },
      { ...plainPod('ds-a', 'test', { hostPID: true }), metadata: { name: 'ds-a', namespace: 'test', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'ds', uid: 'u2', controller: true }] } },
    ],
    expectListPods: true,
    expectWarnings: ['new PodSecurity enforce level only checked against the first 2 of 3 existing pods', existing('baseline:latest'), 'ds-a: host namespaces', 'rs1-a: host namespaces, privileged'],
  },
];

for (const tc of namespaceCases) {
  test(`namespace: ${tc.name}`, async () => {
    const plugin = create(tc.opts);
    const object = ns('test', tc.newLabels);
    const oldObject = tc.oldLabels !== undefined ? ns('test', tc.oldLabels) : undefined;
    const a = withWarnings(
      attrs(object, {
        resource: resources.namespaces,
        operation: oldObject !== undefined ? 'UPDATE' : 'CREATE',
        ...(oldObject !== undefined ? { oldObject: oldObject } : {}),
        name: 'test',
      }),
    );
    const lookup = lookupWith([], tc.pods ?? runtimeClassPods());
    if (tc.expectError !== undefined) {
      const e = await refusal(plugin.validate(a, lookup));
      assert.equal(e.code, 422);
      assert.equal(e.reason, 'Invalid');
      assert.equal(e.message, tc.expectError);
    } else {
      await plugin.validate(a, lookup);
    }
    assert.equal(lookup.listed.length > 0, tc.expectListPods === true);
    assert.deepEqual(a.warnings, tc.expectWarnings ?? []);
  });
}

test('namespace: a lookup that cannot list pods warns instead of failing', async () => {
  const a = withWarnings(attrs(ns('test', { [ENFORCE]: 'restricted' }), { resource: resources.namespaces, operation: 'UPDATE', oldObject: ns('test') }));
  await create().validate(a, { ...fakeLookup(), listPods: () => Promise.reject(new Error('etcd unavailable')) });
  assert.deepEqual(a.warnings, ['failed to list pods while checking new PodSecurity enforce level']);
});

test('namespace: subresources (status, finalize) are not checked', async () => {
  const a = withWarnings(attrs(ns('test', { [ENFORCE]: 'bogus' }), { resource: resources.namespaces, operation: 'UPDATE', subresource: 'status', oldObject: ns('test') }));
  await create().validate(a, lookupWith([]));
  assert.deepEqual(a.warnings, []);
});

// ---- pods (ValidatePod) -------------------------------------------------------------------------------------

const namespaces = [
  ns('test', { [ENFORCE]: 'restricted' }),
  ns('warned', { [WARN]: 'restricted' }),
  ns('mixed', { [ENFORCE]: 'baseline', [WARN]: 'restricted', [AUDIT]: 'restricted' }),
  ns('plain'),
  ns('kube-system'),
  ns('kube-system-labelled', { [ENFORCE]: 'baseline' }),
  ns('bad-labels', { [ENFORCE]: 'strict', [WARN]: 'strict' }),
  ns('old', { [ENFORCE]: 'restricted', [ENFORCE_VERSION]: 'v1.24' }),
];

test('pod: an enforce violation is 403 with upstream message, and no warnings', async () => {
  const a = withWarnings(attrs(plainPod()));
  const e = await refusal(create().validate(a, lookupWith(namespaces)));
  assert.deepEqual(e.toStatus(), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `pods "test-pod" is forbidden: violates PodSecurity "restricted:latest": ${restrictedDetail}`,
    reason: 'Forbidden',
    details: { name: 'test-pod', kind: 'pods' },
    code: 403,
  });
  assert.deepEqual(a.warnings, []);
});

test('pod: a compliant pod passes a restricted namespace', async () => {
  const a = withWarnings(attrs(restrictedPod()));
  await create().validate(a, lookupWith(namespaces));
  assert.deepEqual(a.warnings, []);
});

test('pod: a warn violation is a warning and the pod is admitted', async () => {
  const a = withWarnings(attrs(plainPod('p', 'warned')));
  await create().validate(a, lookupWith(namespaces));
  assert.deepEqual(a.warnings, [`would violate PodSecurity "restricted:latest": ${restrictedDetail}`]);
});

test('pod: enforce baseline passes, warn and audit restricted report', async () => {
  const audits: Record<string, string>[] = [];
  const a = withWarnings(attrs(plainPod('p', 'mixed')));
  await create({ auditAnnotations: (_a, ann) => audits.push(ann) }).validate(a, lookupWith(namespaces));
  assert.deepEqual(a.warnings, [`would violate PodSecurity "restricted:latest": ${restrictedDetail}`]);
  assert.deepEqual(audits, [{ 'enforce-policy': 'baseline:latest', 'audit-violations': `would violate PodSecurity "restricted:latest": ${restrictedDetail}` }]);
});

test('pod: the enforce refusal keeps the audit annotations', async () => {
  const audits: Record<string, string>[] = [];
  await refusal(create({ auditAnnotations: (_a, ann) => audits.push(ann) }).validate(attrs(privilegedPod('p', 'mixed')), lookupWith(namespaces)));
  assert.equal(audits[0]?.['enforce-policy'], 'baseline:latest');
  assert.match(audits[0]?.['audit-violations'] ?? '', /^would violate PodSecurity "restricted:latest": host namespaces \(hostNetwork=true\), privileged/);
});

test('pod: unlabelled namespaces (kube-system included) are privileged: nothing is checked', async () => {
  for (const namespace of ['plain', 'kube-system']) {
    const a = withWarnings(attrs(privilegedPod('p', namespace)));
    await create().validate(a, lookupWith(namespaces));
    assert.deepEqual(a.warnings, []);
  }
  const e = await refusal(create().validate(attrs(privilegedPod('p', 'kube-system-labelled')), lookupWith(namespaces)));
  assert.equal(e.message, `pods "p" is forbidden: violates PodSecurity "baseline:latest": ${baselineDetail}`);
});

test('pod: invalid labels fail closed for enforce (restricted) and open for warn, with an error annotation', async () => {
  const audits: Record<string, string>[] = [];
  const plugin = create({ auditAnnotations: (_a, ann) => audits.push(ann) });
  const e = await refusal(plugin.validate(attrs(plainPod('p', 'bad-labels')), lookupWith(namespaces)));
  assert.equal(e.message, `pods "p" is forbidden: violates PodSecurity "restricted:latest": ${restrictedDetail}`);
  assert.equal(audits[0]?.['error'], 'Failed to parse policy: [metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted, metadata.labels[pod-security.kubernetes.io/warn]: Invalid value: "strict": must be one of privileged, baseline, restricted]');
});

test('pod: a missing namespace is an internal error', async () => {
  const e = await refusal(create().validate(attrs(plainPod('p', 'nosuch')), lookupWith(namespaces)));
  assert.equal(e.code, 500);
  assert.equal(e.message, 'Internal error occurred: failed to lookup namespace "nosuch"');
});

test('pod: ignored subresources pass; other subresources (ephemeralcontainers) are checked', async () => {
  const plugin = create();
  for (const subresource of ['status', 'binding', 'eviction', 'exec', 'attach', 'log', 'portforward', 'proxy']) {
    await plugin.validate(attrs(plainPod(), { operation: 'UPDATE', subresource, oldObject: plainPod() }), lookupWith(namespaces));
  }
  const withDebug: Pod = { ...restrictedPod(), spec: { ...restrictedPod().spec!, ephemeralContainers: [{ name: 'debug', image: 'busybox' }] } };
  const e = await refusal(plugin.validate(attrs(withDebug, { operation: 'UPDATE', subresource: 'ephemeralcontainers', oldObject: restrictedPod() }), lookupWith(namespaces)));
  assert.match(e.message, /^pods "test-pod" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false \(container "debug" must set/);
});

test('pod: updates that only change labels or tolerations are exempt; image changes are checked', async () => {
  const plugin = create();
  const old = plainPod();
  const relabelled: Pod = { ...old, metadata: { ...old.metadata, labels: { a: 'b' } } };
  await plugin.validate(attrs(relabelled, { operation: 'UPDATE', oldObject: old }), lookupWith(namespaces));
  const newImage: Pod = { ...old, spec: { containers: [{ name: 'c', image: 'nginx:1.28' }] } };
  await refusal(plugin.validate(attrs(newImage, { operation: 'UPDATE', oldObject: old }), lookupWith(namespaces)));
});

test('isSignificantPodUpdate', () => {
  const base: Pod = { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'a' }], initContainers: [{ name: 'i', image: 'b' }] } };
  const clone = (): Pod => structuredClone(base);
  assert.equal(isSignificantPodUpdate(clone(), base), false);
  const image = clone();
  image.spec!.containers[0]!.image = 'z';
  assert.equal(isSignificantPodUpdate(image, base), true);
  const initImage = clone();
  initImage.spec!.initContainers![0]!.image = 'z';
  assert.equal(isSignificantPodUpdate(initImage, base), true);
  const added = clone();
  added.spec!.containers.push({ name: 'd' });
  assert.equal(isSignificantPodUpdate(added, base), true);
  const seccomp = clone();
  seccomp.metadata!.annotations = { 'container.seccomp.security.alpha.kubernetes.io/c': 'unconfined' };
  assert.equal(isSignificantPodUpdate(seccomp, base), true);
  const podSeccomp = clone();
  podSeccomp.metadata!.annotations = { 'seccomp.security.alpha.kubernetes.io/pod': 'unconfined' };
  assert.equal(isSignificantPodUpdate(podSeccomp, base), false);
  const ephemeral = clone();
  ephemeral.spec!.ephemeralContainers = [{ name: 'debug', image: 'busybox' }];
  assert.equal(isSignificantPodUpdate(ephemeral, base), true);
  assert.equal(isSignificantPodUpdate(ephemeral, structuredClone(ephemeral)), false);
});

test('pod: exempt users, namespaces and runtime classes are not checked', async () => {
  const plugin = create({ exemptions: { usernames: ['system:serviceaccount:kube-system:replicaset-controller'], namespaces: ['test-exempt'], runtimeClasses: ['kata'] } });
  const lookup = lookupWith([...namespaces, ns('test-exempt', { [ENFORCE]: 'restricted' })]);
  await plugin.validate(attrs(plainPod(), { userInfo: { username: 'system:serviceaccount:kube-system:replicaset-controller', groups: [] } }), lookup);
  await plugin.validate(attrs(plainPod('p', 'test-exempt')), lookup);
  await plugin.validate(attrs(plainPod('p', 'test', { runtimeClassName: 'kata' })), lookup);
  await refusal(plugin.validate(attrs(plainPod('p', 'test', { runtimeClassName: 'runc' })), lookup));
});

test('pod: DELETE and CONNECT are not checked', async () => {
  await create().validate(attrs(undefined, { operation: 'DELETE', name: 'test-pod', namespace: 'test', oldObject: plainPod() }), lookupWith(namespaces));
});

test('pod: windows pods meet restricted without the Linux-only fields from policy 1.25', async () => {
  const windowsPod: Pod = {
    metadata: { name: 'iis', namespace: 'test' },
    spec: { os: { name: 'windows' }, securityContext: { runAsNonRoot: true, windowsOptions: { runAsUserName: 'ContainerUser' } }, containers: [{ name: 'iis', image: 'mcr.microsoft.com/windows/servercore/iis' }] },
  };
  await create().validate(attrs(windowsPod), lookupWith(namespaces));
  const old = { ...windowsPod, metadata: { name: 'iis', namespace: 'old' } };
  const e = await refusal(create().validate(attrs(old), lookupWith(namespaces)));
  assert.equal(
    e.message,
    'pods "iis" is forbidden: violates PodSecurity "restricted:v1.24": allowPrivilegeEscalation != false (container "iis" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "iis" must set securityContext.capabilities.drop=["ALL"]), seccompProfile (pod or container "iis" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
  );
  const hostProcess: Pod = { ...windowsPod, spec: { ...windowsPod.spec!, hostNetwork: true, securityContext: { ...windowsPod.spec!.securityContext, windowsOptions: { hostProcess: true, runAsUserName: 'NT AUTHORITY\\SYSTEM' } } } };
  const hp = await refusal(create().validate(attrs(hostProcess), lookupWith(namespaces)));
  assert.equal(hp.message, 'pods "iis" is forbidden: violates PodSecurity "restricted:latest": host namespaces (hostNetwork=true), hostProcess (pod must not set securityContext.windowsOptions.hostProcess=true)');
});

// ---- workload resources (ValidatePodController) -------------------------------------------------------------

const template = (spec: PodSpec): { metadata: { labels: Record<string, string> }; spec: PodSpec } => ({ metadata: { labels: { app: 'x' } }, spec });
const privilegedSpec: PodSpec = { hostNetwork: true, containers: [{ name: 'c', image: 'nginx:1.27', securityContext: { privileged: true } }] };

const workloads: [ResourceType, (spec: PodSpec) => Record<string, unknown>][] = [
  [resources.deployments, (s) => ({ spec: { selector: {}, template: template(s) } })],
  [resources.replicasets, (s) => ({ spec: { selector: {}, template: template(s) } })],
  [resources.statefulsets, (s) => ({ spec: { selector: {}, serviceName: 'x', template: template(s) } })],
  [resources.daemonsets, (s) => ({ spec: { selector: {}, template: template(s) } })],
  [resources.jobs, (s) => ({ spec: { template: template(s) } })],
  [resources.cronjobs, (s) => ({ spec: { schedule: '* * * * *', jobTemplate: { spec: { template: template(s) } } } })],
  [resources.replicationcontrollers, (s) => ({ spec: { template: template(s) } })],
  [resources.podtemplates, (s) => ({ template: template(s) })],
];

for (const [resource, build] of workloads) {
  test(`workload ${resource.resource}: warn only, never enforce`, async () => {
    const lookup = lookupWith([ns('test', { [ENFORCE]: 'restricted', [WARN]: 'baseline' })]);
    const object = { metadata: { name: 'w', namespace: 'test' }, ...build(privilegedSpec) } as KubeObject;
    for (const operation of ['CREATE', 'UPDATE'] as const) {
      const a = withWarnings(attrs(object, { resource, operation, ...(operation === 'UPDATE' ? { oldObject: object } : {}) }));
      await create().validate(a, lookup);
      assert.deepEqual(a.warnings, [`would violate PodSecurity "baseline:latest": ${baselineDetail}`]);
    }
  });
}

test('workload: an enforce-only namespace neither refuses nor warns', async () => {
  const a = withWarnings(attrs({ metadata: { name: 'w', namespace: 'test' }, spec: { template: template(privilegedSpec) } } as KubeObject, { resource: resources.deployments }));
  await create().validate(a, lookupWith(namespaces));
  assert.deepEqual(a.warnings, []);
});

test('workload: subresources (scale, status) and a ReplicationController without a template are not checked', async () => {
  const lookup = lookupWith([ns('test', { [WARN]: 'baseline' })]);
  const scaled = withWarnings(attrs({ metadata: { name: 'w', namespace: 'test' }, spec: { template: template(privilegedSpec) } } as KubeObject, { resource: resources.deployments, subresource: 'scale' }));
  await create().validate(scaled, lookup);
  const rc = withWarnings(attrs({ metadata: { name: 'rc', namespace: 'test' }, spec: {} } as KubeObject, { resource: resources.replicationcontrollers }));
  await create().validate(rc, lookup);
  assert.deepEqual([...scaled.warnings, ...rc.warnings], []);
});

test('workload: other resources are not checked', async () => {
  const a = withWarnings(attrs({ metadata: { name: 's', namespace: 'test' }, spec: { template: template(privilegedSpec) } } as KubeObject, { resource: resources.services }));
  await create().validate(a, lookupWith([ns('test', { [WARN]: 'baseline' })]));
  assert.deepEqual(a.warnings, []);
});

test('the default configuration is privileged:latest everywhere (upstream defaults)', async () => {
  const a = withWarnings(attrs(privilegedPod('p', 'plain')));
  await create().validate(a, lookupWith(namespaces));
  assert.deepEqual(a.warnings, []);
  // A cluster default can tighten unlabelled namespaces.
  const strict = create({ defaults: { enforce: { level: Level.Baseline, version: minorVersion(30) }, audit: { level: Level.Privileged, version: latestVersion }, warn: { level: Level.Privileged, version: latestVersion } } });
  const e = await refusal(strict.validate(attrs(privilegedPod('p', 'plain')), lookupWith(namespaces)));
  assert.equal(e.message, `pods "p" is forbidden: violates PodSecurity "baseline:v1.30": ${baselineDetail}`);
});
