/**
 * The defaults of the API groups beyond core, apps and batch (autoscaling, networking, storage, rbac,
 * flowcontrol, apiregistration, apiextensions), with upstream's `defaults_test.go` tables ported case by
 * case where upstream has them.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { HorizontalPodAutoscaler, HPAScalingPolicy, HPAScalingRules } from 'kubernetes-types/autoscaling/v2.js';
import type { HorizontalPodAutoscaler as HorizontalPodAutoscalerV1 } from 'kubernetes-types/autoscaling/v1.js';
import type { IngressClassSpec, NetworkPolicy, NetworkPolicySpec } from 'kubernetes-types/networking/v1.js';
import type { CSIDriver, CSIDriverSpec, StorageClass } from 'kubernetes-types/storage/v1.js';
import type { PriorityLevelConfiguration, PriorityLevelConfigurationSpec } from 'kubernetes-types/flowcontrol/v1.js';
import type { KubeObject } from '../../client/client.js';
import {
  applyDefaults,
  defaultAPIService,
  defaultCSIDriver,
  defaultCustomResourceDefinition,
  defaultFlowSchema,
  defaultHorizontalPodAutoscaler,
  defaultHorizontalPodAutoscalerV1,
  defaultIngressClass,
  defaultNetworkPolicy,
  defaultPriorityLevelConfiguration,
  defaultRoleBinding,
  defaultStorageClass,
  defaultVolumeAttachment,
  generateHPAScaleDownRules,
  generateHPAScaleUpRules,
} from './defaults.js';

const scaleTargetRef = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
const cpu80 = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }];

/** The scaling rules the Generate* tests start from: their policies in Pods, Percent order, as upstream builds them. */
function scalingRules(tc: { pods?: [number, number]; percent?: [number, number]; stabilizationSeconds?: number; selectPolicy?: string }): HPAScalingRules {
  const rules: HPAScalingRules = {};
  if (tc.stabilizationSeconds !== undefined) rules.stabilizationWindowSeconds = tc.stabilizationSeconds;
  if (tc.selectPolicy !== undefined) rules.selectPolicy = tc.selectPolicy;
  const policies: HPAScalingPolicy[] = [];
  if (tc.pods !== undefined) policies.push({ type: 'Pods', value: tc.pods[0], periodSeconds: tc.pods[1] });
  if (tc.percent !== undefined) policies.push({ type: 'Percent', value: tc.percent[0], periodSeconds: tc.percent[1] });
  if (policies.length > 0) rules.policies = policies;
  return rules;
}

interface ScalingRulesCase {
  annotation: string;
  pods?: [value: number, periodSeconds: number];
  percent?: [value: number, periodSeconds: number];
  stabilizationSeconds?: number;
  selectPolicy?: string;
  expectedPolicies: HPAScalingPolicy[];
  expectedStabilization: number | undefined;
  expectedSelectPolicy: string;
}

/** Runs upstream's `{name, original, expected}` spec tables through a defaulter (their round trips default the spec). */
function specCases<S>(defaulter: (obj: { spec: S }) => void, cases: { name: string; original: S; expected: S }[]): void {
  for (const tc of cases) {
    test(tc.name, () => {
      const obj = { spec: structuredClone(tc.original) };
      defaulter(obj);
      assert.deepEqual(obj.spec, tc.expected);
    });
  }
}

/** The case both upstream tables share. */
const allParametersSpecified: ScalingRulesCase = {
  annotation: 'All parameters are specified',
  pods: [1, 2],
  percent: [3, 4],
  stabilizationSeconds: 25,
  selectPolicy: 'Max',
  expectedPolicies: [
    { type: 'Pods', value: 1, periodSeconds: 2 },
    { type: 'Percent', value: 3, periodSeconds: 4 },
  ],
  expectedStabilization: 25,
  expectedSelectPolicy: 'Max',
};

function scalingRulesTests(generate: (rules: HPAScalingRules) => HPAScalingRules, cases: ScalingRulesCase[]): void {
  for (const tc of cases) {
    test(tc.annotation, () => {
      const rules = generate(scalingRules(tc));
      assert.deepEqual(rules.policies, tc.expectedPolicies);
      assert.equal(rules.stabilizationWindowSeconds, tc.expectedStabilization);
      assert.equal(rules.selectPolicy, tc.expectedSelectPolicy);
    });
  }
}

describe('autoscaling/v2 TestGenerateScaleDownRules', () => {
  scalingRulesTests(generateHPAScaleDownRules, [
    { annotation: 'Default values', expectedPolicies: [{ type: 'Percent', value: 100, periodSeconds: 15 }], expectedStabilization: undefined, expectedSelectPolicy: 'Max' },
    allParametersSpecified,
    { annotation: 'Percent policy is specified', percent: [1, 2], selectPolicy: 'Min', expectedPolicies: [{ type: 'Percent', value: 1, periodSeconds: 2 }], expectedStabilization: undefined, expectedSelectPolicy: 'Min' },
    { annotation: 'Pods policy is specified', pods: [3, 4], expectedPolicies: [{ type: 'Pods', value: 3, periodSeconds: 4 }], expectedStabilization: undefined, expectedSelectPolicy: 'Max' },
  ]);
});

describe('autoscaling/v2 TestGenerateScaleUpRules', () => {
  scalingRulesTests(generateHPAScaleUpRules, [
    {
      annotation: 'Default values',
      expectedPolicies: [
        { type: 'Pods', value: 4, periodSeconds: 15 },
        { type: 'Percent', value: 100, periodSeconds: 15 },
      ],
      expectedStabilization: 0,
      expectedSelectPolicy: 'Max',
    },
    allParametersSpecified,
    { annotation: 'Pod policy is specified', pods: [1, 2], selectPolicy: 'Min', expectedPolicies: [{ type: 'Pods', value: 1, periodSeconds: 2 }], expectedStabilization: 0, expectedSelectPolicy: 'Min' },
    { annotation: 'Percent policy is specified', percent: [7, 10], expectedPolicies: [{ type: 'Percent', value: 7, periodSeconds: 10 }], expectedStabilization: 0, expectedSelectPolicy: 'Max' },
    { annotation: 'Pod policy and stabilization window are specified', pods: [4, 2], stabilizationSeconds: 25, expectedPolicies: [{ type: 'Pods', value: 4, periodSeconds: 2 }], expectedStabilization: 25, expectedSelectPolicy: 'Max' },
    { annotation: 'Percent policy and stabilization window are specified', percent: [7, 60], stabilizationSeconds: 25, expectedPolicies: [{ type: 'Percent', value: 7, periodSeconds: 60 }], expectedStabilization: 25, expectedSelectPolicy: 'Max' },
  ]);
});

describe('autoscaling/v2 SetDefaults_HorizontalPodAutoscaler', () => {
  test('unspecified min replicas and metrics: minReplicas 1 and a CPU utilization target of 80%', () => {
    const hpa: HorizontalPodAutoscaler = { spec: { scaleTargetRef, maxReplicas: 5 } };
    defaultHorizontalPodAutoscaler(hpa);
    assert.deepEqual(hpa.spec, { scaleTargetRef, maxReplicas: 5, minReplicas: 1, metrics: cpu80 });
  });

  test('set min replicas to 3 and a memory metric: both are kept, no behavior is added', () => {
    const metrics = [{ type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '500Mi' } } }];
    const hpa: HorizontalPodAutoscaler = { spec: { scaleTargetRef, minReplicas: 3, maxReplicas: 5, metrics: structuredClone(metrics) } };
    defaultHorizontalPodAutoscaler(hpa);
    assert.deepEqual(hpa.spec, { scaleTargetRef, minReplicas: 3, maxReplicas: 5, metrics });
  });

  test('an empty metrics list gets the CPU target as a missing one does', () => {
    const hpa: HorizontalPodAutoscaler = { spec: { scaleTargetRef, maxReplicas: 2, metrics: [] } };
    defaultHorizontalPodAutoscaler(hpa);
    assert.deepEqual(hpa.spec?.metrics, cpu80);
  });

  test('an empty behavior gets both rule sets (SetDefaults_HorizontalPodAutoscalerBehavior)', () => {
    const hpa: HorizontalPodAutoscaler = { spec: { scaleTargetRef, maxReplicas: 2, behavior: {} } };
    defaultHorizontalPodAutoscaler(hpa);
    assert.deepEqual(hpa.spec?.behavior, {
      scaleUp: {
        stabilizationWindowSeconds: 0,
        selectPolicy: 'Max',
        policies: [
          { type: 'Pods', value: 4, periodSeconds: 15 },
          { type: 'Percent', value: 100, periodSeconds: 15 },
        ],
      },
      scaleDown: { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
    });
  });

  test('a scale-down window alone keeps its value and gets the default policies; scale-up is filled in', () => {
    const hpa: HorizontalPodAutoscaler = { spec: { scaleTargetRef, maxReplicas: 2, behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } } };
    defaultHorizontalPodAutoscaler(hpa);
    assert.deepEqual(hpa.spec?.behavior?.scaleDown, { stabilizationWindowSeconds: 60, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] });
    assert.equal(hpa.spec?.behavior?.scaleUp?.stabilizationWindowSeconds, 0);
  });

  test('an empty policy list replaces the default one (copyHPAScalingRules copies a non-nil slice)', () => {
    assert.deepEqual(generateHPAScaleUpRules({ policies: [] }).policies, []);
  });
});

describe('autoscaling/v1 TestSetDefaultHPA', () => {
  const cases: { test: string; hpa: HorizontalPodAutoscalerV1; expectReplicas: number }[] = [
    { test: 'unspecified min replicas, use the default value', hpa: {}, expectReplicas: 1 },
    { test: 'set min replicas to 3', hpa: { spec: { scaleTargetRef, maxReplicas: 5, minReplicas: 3 } }, expectReplicas: 3 },
  ];
  for (const tc of cases) {
    test(tc.test, () => {
      defaultHorizontalPodAutoscalerV1(tc.hpa);
      assert.equal(tc.hpa.spec?.minReplicas, tc.expectReplicas);
    });
  }

  test('v1 defaults leave the CPU target alone: it is the conversion that fills it in', () => {
    const hpa: HorizontalPodAutoscalerV1 = { spec: { scaleTargetRef, maxReplicas: 5 } };
    defaultHorizontalPodAutoscalerV1(hpa);
    assert.deepEqual(hpa.spec, { scaleTargetRef, maxReplicas: 5, minReplicas: 1 });
  });

  test('applyDefaults picks the version named, else the object apiVersion, else v2', () => {
    const v1Named = { spec: { scaleTargetRef, maxReplicas: 5 } };
    applyDefaults({ group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' }, v1Named as KubeObject);
    assert.deepEqual(v1Named.spec, { scaleTargetRef, maxReplicas: 5, minReplicas: 1 });
    const v1ByApiVersion = { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', spec: { scaleTargetRef, maxReplicas: 5 } };
    applyDefaults({ group: 'autoscaling', kind: 'HorizontalPodAutoscaler' }, v1ByApiVersion);
    assert.deepEqual(v1ByApiVersion.spec, { scaleTargetRef, maxReplicas: 5, minReplicas: 1 });
    const v2 = { spec: { scaleTargetRef, maxReplicas: 5 } };
    applyDefaults({ group: 'autoscaling', kind: 'HorizontalPodAutoscaler' }, v2 as KubeObject);
    assert.deepEqual(v2.spec, { scaleTargetRef, maxReplicas: 5, minReplicas: 1, metrics: cpu80 });
  });
});

describe('networking/v1 TestSetDefaultNetworkPolicy', () => {
  const podSelector = { matchLabels: { a: 'b' } };
  const peerCD = { podSelector: { matchLabels: { c: 'd' } }, namespaceSelector: { matchLabels: { c: 'd' } } };
  const nsCD = { namespaceSelector: { matchLabels: { c: 'd' } } };
  const cases: { name: string; original: NetworkPolicySpec; expected: NetworkPolicySpec }[] = [
    { name: 'Empty NetworkPolicy should be set to PolicyTypes Ingress', original: { podSelector }, expected: { podSelector, policyTypes: ['Ingress'] } },
    { name: 'Empty Ingress NetworkPolicy should be set to PolicyTypes Ingress', original: { podSelector, ingress: [] }, expected: { podSelector, ingress: [], policyTypes: ['Ingress'] } },
    {
      name: 'Defined Ingress and Egress should be set to Ingress,Egress',
      original: { podSelector, ingress: [{ from: [peerCD] }], egress: [{ to: [nsCD] }] },
      expected: { podSelector, ingress: [{ from: [peerCD] }], egress: [{ to: [nsCD] }], policyTypes: ['Ingress', 'Egress'] },
    },
    { name: 'Egress only with unset PolicyTypes should be set to Ingress, Egress', original: { podSelector, egress: [{ to: [nsCD] }] }, expected: { podSelector, egress: [{ to: [nsCD] }], policyTypes: ['Ingress', 'Egress'] } },
    {
      name: 'Egress only with PolicyTypes set to Egress should be set to only Egress',
      original: { podSelector, egress: [{ to: [{ namespaceSelector: { matchLabels: { Egress: 'only' } } }] }], policyTypes: ['Egress'] },
      expected: { podSelector, egress: [{ to: [{ namespaceSelector: { matchLabels: { Egress: 'only' } } }] }], policyTypes: ['Egress'] },
    },
  ];
  specCases(defaultNetworkPolicy, cases);

  test('SetDefaults_NetworkPolicyPort: ingress and egress ports without a protocol get TCP, others keep theirs', () => {
    const np: NetworkPolicy = { spec: { podSelector, policyTypes: ['Ingress', 'Egress'], ingress: [{ ports: [{ port: 80 }, { port: 53, protocol: 'UDP' }] }], egress: [{ ports: [{ port: 'dns' }] }] } };
    defaultNetworkPolicy(np);
    assert.deepEqual(np.spec?.ingress?.[0]?.ports, [{ port: 80, protocol: 'TCP' }, { port: 53, protocol: 'UDP' }]);
    assert.deepEqual(np.spec?.egress?.[0]?.ports, [{ port: 'dns', protocol: 'TCP' }]);
  });
});

describe('networking/v1 TestSetDefaultsForIngressClassParametersReference', () => {
  const cases: { name: string; original: IngressClassSpec; expected: IngressClassSpec }[] = [
    { name: 'populated parameters sets the default Scope', original: { controller: 'controller', parameters: { kind: 'k', name: 'n' } }, expected: { controller: 'controller', parameters: { kind: 'k', name: 'n', scope: 'Cluster' } } },
    {
      name: 'existing scope is not overridden',
      original: { controller: 'controller', parameters: { kind: 'k', name: 'n', scope: 'Namespace', namespace: 'foo-ns' } },
      expected: { controller: 'controller', parameters: { kind: 'k', name: 'n', scope: 'Namespace', namespace: 'foo-ns' } },
    },
    { name: 'empty Parameters does not set the default Scope', original: { controller: 'controller' }, expected: { controller: 'controller' } },
  ];
  specCases(defaultIngressClass, cases);
});

describe('storage/v1 StorageClass, CSIDriver and VolumeAttachment', () => {
  test('TestSetDefaultVolumeBindingMode: Immediate; SetDefaults_StorageClass: reclaimPolicy Delete', () => {
    const sc: StorageClass = { provisioner: 'kubernetes.io/no-provisioner' };
    defaultStorageClass(sc);
    assert.deepEqual(sc, { provisioner: 'kubernetes.io/no-provisioner', reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' });
  });

  test('a StorageClass keeps the reclaim policy and binding mode it sets', () => {
    const sc: StorageClass = { provisioner: 'p', reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer' };
    defaultStorageClass(sc);
    assert.deepEqual(sc, { provisioner: 'p', reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer' });
  });

  // TestSetDefaultCSIDriver, TestSetDefaultStorageCapacityEnabled and TestSetDefaultSELinuxMountReadWriteOncePodEnabled
  // (the gate is on by default in 1.32), plus fsGroupPolicy, which upstream defaults without a test of its own.
  const csiCases: { desc: string; field: keyof CSIDriverSpec; want: unknown }[] = [
    { desc: 'AttachRequired default to true', field: 'attachRequired', want: true },
    { desc: 'PodInfoOnMount default to false', field: 'podInfoOnMount', want: false },
    { desc: 'StorageCapacity default to false', field: 'storageCapacity', want: false },
    { desc: 'FSGroupPolicy default to ReadWriteOnceWithFSType', field: 'fsGroupPolicy', want: 'ReadWriteOnceWithFSType' },
    { desc: 'VolumeLifecycleModes default to VolumeLifecyclePersistent', field: 'volumeLifecycleModes', want: ['Persistent'] },
    { desc: 'RequiresRepublish default to false', field: 'requiresRepublish', want: false },
    { desc: 'SELinuxMount default to false', field: 'seLinuxMount', want: false },
  ];
  for (const tc of csiCases) {
    test(`CSIDriver: ${tc.desc}`, () => {
      const driver: CSIDriver = { metadata: { name: 'csi.example.com' } } as CSIDriver;
      defaultCSIDriver(driver);
      assert.deepEqual(driver.spec?.[tc.field], tc.want);
    });
  }

  test('a CSIDriver keeps every field it sets', () => {
    const spec: CSIDriverSpec = { attachRequired: false, podInfoOnMount: true, storageCapacity: true, fsGroupPolicy: 'File', volumeLifecycleModes: ['Ephemeral'], requiresRepublish: true, seLinuxMount: true };
    const driver: CSIDriver = { spec: structuredClone(spec) };
    defaultCSIDriver(driver);
    assert.deepEqual(driver.spec, spec);
  });

  test('a VolumeAttachment defaults the volume source of its inline volume spec', () => {
    const va = { spec: { attacher: 'a', nodeName: 'n', source: { inlineVolumeSpec: { azureDisk: { diskName: 'd', diskURI: 'u' } } } } };
    defaultVolumeAttachment(va);
    assert.deepEqual(va.spec.source.inlineVolumeSpec, { azureDisk: { diskName: 'd', diskURI: 'u', cachingMode: 'ReadWrite', fsType: 'ext4', readOnly: false, kind: 'Shared' } });
  });
});

describe('rbac/v1 SetDefaults_RoleBinding, SetDefaults_ClusterRoleBinding and SetDefaults_Subject', () => {
  test('the role reference apiGroup defaults to rbac.authorization.k8s.io', () => {
    const rb = { roleRef: { kind: 'Role', name: 'r' }, subjects: [] };
    defaultRoleBinding(rb as never);
    assert.deepEqual(rb.roleRef, { kind: 'Role', name: 'r', apiGroup: 'rbac.authorization.k8s.io' });
  });

  test('User and Group subjects get the RBAC group; a ServiceAccount keeps the core group ("")', () => {
    const crb = {
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [
        { kind: 'User', name: 'jane' },
        { kind: 'Group', name: 'devs' },
        { kind: 'ServiceAccount', name: 'default', namespace: 'default' },
      ],
    };
    applyDefaults({ group: 'rbac.authorization.k8s.io', kind: 'ClusterRoleBinding' }, crb as KubeObject);
    assert.deepEqual(crb.subjects, [
      { kind: 'User', name: 'jane', apiGroup: 'rbac.authorization.k8s.io' },
      { kind: 'Group', name: 'devs', apiGroup: 'rbac.authorization.k8s.io' },
      { kind: 'ServiceAccount', name: 'default', namespace: 'default' },
    ]);
  });

  test('a subject apiGroup that is set is kept', () => {
    const rb = { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' }, subjects: [{ kind: 'User', name: 'x', apiGroup: 'example.com' }] };
    applyDefaults({ group: 'rbac.authorization.k8s.io', kind: 'RoleBinding' }, rb as KubeObject);
    assert.deepEqual(rb.subjects, [{ kind: 'User', name: 'x', apiGroup: 'example.com' }]);
  });
});

describe('flowcontrol/v1 TestDefaultWithPriorityLevelConfiguration', () => {
  const rejectResponse = { type: 'Reject' };
  const cases: { name: string; original: PriorityLevelConfigurationSpec; expected: PriorityLevelConfigurationSpec }[] = [
    { name: 'Defaulting for Exempt', original: { type: 'Exempt', exempt: {} }, expected: { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } } },
    {
      name: 'LendablePercent is not specified in Limited, should default to zero',
      original: { type: 'Limited', limited: { nominalConcurrencyShares: 5, limitResponse: rejectResponse } },
      expected: { type: 'Limited', limited: { nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: rejectResponse } },
    },
    {
      name: 'NominalConcurrencyShares is not specified in Limited, should default to 30',
      original: { type: 'Limited', limited: { limitResponse: rejectResponse } },
      expected: { type: 'Limited', limited: { nominalConcurrencyShares: 30, lendablePercent: 0, limitResponse: rejectResponse } },
    },
    {
      name: 'NominalConcurrencyShares is set to zero in Limited, no defaulting should be applied',
      original: { type: 'Limited', limited: { nominalConcurrencyShares: 0, limitResponse: rejectResponse } },
      expected: { type: 'Limited', limited: { nominalConcurrencyShares: 0, lendablePercent: 0, limitResponse: rejectResponse } },
    },
  ];
  specCases(defaultPriorityLevelConfiguration, cases);

  test('SetDefaults_QueuingConfiguration: hand size 8, 64 queues, 50 long; values set are kept', () => {
    const plc: PriorityLevelConfiguration = { spec: { type: 'Limited', limited: { nominalConcurrencyShares: 10, lendablePercent: 20, limitResponse: { type: 'Queue', queuing: { queues: 16 } } } } };
    defaultPriorityLevelConfiguration(plc);
    assert.deepEqual(plc.spec?.limited?.limitResponse?.queuing, { queues: 16, handSize: 8, queueLengthLimit: 50 });
  });
});

describe('flowcontrol/v1 SetDefaults_FlowSchemaSpec', () => {
  test('matchingPrecedence defaults to 1000', () => {
    const fs = { spec: { priorityLevelConfiguration: { name: 'workload-low' } } };
    defaultFlowSchema(fs);
    assert.deepEqual(fs.spec, { priorityLevelConfiguration: { name: 'workload-low' }, matchingPrecedence: 1000 });
  });

  test('a matchingPrecedence that is set is kept', () => {
    const fs = { spec: { priorityLevelConfiguration: { name: 'p' }, matchingPrecedence: 200 } };
    applyDefaults({ group: 'flowcontrol.apiserver.k8s.io', kind: 'FlowSchema' }, fs as KubeObject);
    assert.equal(fs.spec.matchingPrecedence, 200);
  });
});

describe('apiregistration/v1 SetDefaults_ServiceReference', () => {
  test('an APIService backed by a service gets port 443', () => {
    const svc = { spec: { group: 'metrics.k8s.io', version: 'v1beta1', service: { namespace: 'kube-system', name: 'metrics-server' }, groupPriorityMinimum: 100, versionPriority: 100 } };
    defaultAPIService(svc);
    assert.deepEqual(svc.spec.service, { namespace: 'kube-system', name: 'metrics-server', port: 443 });
  });

  test('a local APIService (service: null) is left alone', () => {
    const local = { spec: { group: 'apps', version: 'v1', service: null, groupPriorityMinimum: 17800, versionPriority: 15 } };
    applyDefaults({ group: 'apiregistration.k8s.io', kind: 'APIService' }, local as KubeObject);
    assert.deepEqual(local.spec, { group: 'apps', version: 'v1', service: null, groupPriorityMinimum: 17800, versionPriority: 15 });
  });
});

describe('apiextensions/v1 SetDefaults_CustomResourceDefinition', () => {
  test('the first storage version is recorded as stored when none is', () => {
    const crd = { spec: { names: { kind: 'Widget', plural: 'widgets' }, versions: [{ name: 'v1beta1', storage: false }, { name: 'v1', storage: true }] } };
    defaultCustomResourceDefinition(crd);
    assert.deepEqual((crd as { status?: unknown }).status, { storedVersions: ['v1'] });
  });

  test('stored versions that are set are kept', () => {
    const crd = { spec: { names: { kind: 'Widget' }, versions: [{ name: 'v2', storage: true }] }, status: { storedVersions: ['v1', 'v2'] } };
    defaultCustomResourceDefinition(crd);
    assert.deepEqual(crd.status, { storedVersions: ['v1', 'v2'] });
  });
});
