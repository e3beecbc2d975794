/**
 * pkg/apis/autoscaling/validation/validation_test.go (v1.32), case by case. Upstream checks that the first
 * error contains a substring; these assert the whole list. Fixtures are autoscaling/v2 objects as the API
 * server decodes them from JSON, so quantities are text (`-300m`), which Go's parser remembers in the
 * struct's string cache (`s:"-300m"`); upstream's Go fixtures build theirs with `NewMilliQuantity`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HorizontalPodAutoscaler, HorizontalPodAutoscalerBehavior, HPAScalingRules, MetricSpec } from 'kubernetes-types/autoscaling/v2.js';
import { fieldErrorString } from '../../api/field-errors.js';
import { hpaV1ToV2 } from '../registry/converting-store.js';
import { goQuantity } from './_go.js';
import { validate } from './index.js';

const kind = { group: 'autoscaling', kind: 'HorizontalPodAutoscaler' };
type Spec = NonNullable<HorizontalPodAutoscaler['spec']>;

function hpa(spec: Partial<Spec>): HorizontalPodAutoscaler {
  return {
    metadata: { name: 'myautoscaler', namespace: 'default' },
    spec: { scaleTargetRef: { kind: 'ReplicationController', name: 'myrc' }, minReplicas: 1, maxReplicas: 5, ...spec },
  };
}

const errorsOf = (h: HorizontalPodAutoscaler, old?: HorizontalPodAutoscaler): string[] => validate(kind, h, old).map(fieldErrorString);

const cpuUtilization: MetricSpec = { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } };
const labelSelector = { matchLabels: { label: 'value' } };
const supportedSourceTypes = 'supported values: "ContainerResource", "External", "Object", "Pods", "Resource"';
const m0 = 'spec.metrics[0]';

// ---- TestValidateBehavior ----

const simplePoliciesList = [
  { type: 'Percent', value: 10, periodSeconds: 1 },
  { type: 'Pods', value: 1, periodSeconds: 1800 },
];

function withBehavior(behavior: HorizontalPodAutoscalerBehavior): HorizontalPodAutoscaler {
  return hpa({ metrics: [cpuUtilization], behavior });
}

const alternatingPolicies = [
  { type: 'Pods', value: 1, periodSeconds: 2 },
  { type: 'Percent', value: 3, periodSeconds: 4 },
  { type: 'Pods', value: 5, periodSeconds: 6 },
  { type: 'Percent', value: 7, periodSeconds: 8 },
];

const behaviorSuccessCases: { name: string; behavior: HorizontalPodAutoscalerBehavior }[] = [
  { name: 'no scaling rules', behavior: {} },
  {
    name: 'window at the maximum, Min and Disabled policies',
    behavior: {
      scaleUp: { stabilizationWindowSeconds: 3600, selectPolicy: 'Min', policies: simplePoliciesList },
      scaleDown: { stabilizationWindowSeconds: 0, selectPolicy: 'Disabled', policies: simplePoliciesList },
    },
  },
  {
    name: 'several policies of each type',
    behavior: {
      scaleUp: { stabilizationWindowSeconds: 120, selectPolicy: 'Max', policies: alternatingPolicies },
      scaleDown: { stabilizationWindowSeconds: 120, selectPolicy: 'Max', policies: alternatingPolicies },
    },
  },
];

for (const tc of behaviorSuccessCases) {
  test(`behavior: ${tc.name} is valid`, () => {
    assert.deepEqual(errorsOf(withBehavior(tc.behavior)), []);
  });
}

const behaviorErrorCases: { rules: HPAScalingRules; msg: string }[] = [
  { rules: { selectPolicy: 'Min' }, msg: 'policies: Required value: must specify at least one Policy' },
  { rules: { stabilizationWindowSeconds: 3601, selectPolicy: 'Min', policies: simplePoliciesList }, msg: 'stabilizationWindowSeconds: Invalid value: 3601: must be less than or equal to 3600' },
  { rules: { policies: [{ type: 'Pods', value: 7, periodSeconds: 1801 }] }, msg: 'policies[0].periodSeconds: Invalid value: 1801: must be less than or equal to 1800' },
  { rules: { selectPolicy: 'incorrect', policies: [{ type: 'Pods', value: 7, periodSeconds: 8 }] }, msg: 'selectPolicy: Unsupported value: "incorrect": supported values: "Disabled", "Max", "Min"' },
  { rules: { policies: [{ type: 'hm', value: 7, periodSeconds: 8 }] }, msg: 'policies[0].type: Unsupported value: "hm": supported values: "Percent", "Pods"' },
  { rules: { policies: [{ type: 'Pods', value: 8 } as never] }, msg: 'policies[0].periodSeconds: Invalid value: 0: must be greater than zero' },
  { rules: { policies: [{ type: 'Pods', periodSeconds: 8 } as never] }, msg: 'policies[0].value: Invalid value: 0: must be greater than zero' },
  { rules: { policies: [{ type: 'Pods', periodSeconds: -1, value: 1 }] }, msg: 'policies[0].periodSeconds: Invalid value: -1: must be greater than zero' },
  { rules: { policies: [{ type: 'Pods', periodSeconds: 1, value: -1 }] }, msg: 'policies[0].value: Invalid value: -1: must be greater than zero' },
];

for (const direction of ['scaleUp', 'scaleDown'] as const) {
  for (const tc of behaviorErrorCases) {
    const want = `spec.behavior.${direction}.${tc.msg}`;
    test(`behavior: ${want}`, () => {
      assert.deepEqual(errorsOf(withBehavior({ [direction]: tc.rules })), [want]);
    });
  }
}

test('behavior: a negative stabilization window', () => {
  assert.deepEqual(errorsOf(withBehavior({ scaleDown: { stabilizationWindowSeconds: -1, policies: simplePoliciesList } })), [
    'spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: -1: must be greater than or equal to zero',
  ]);
});

// ---- TestValidateHorizontalPodAutoscaler ----

const successCases: { name: string; spec: Partial<Spec> }[] = [
  { name: 'resource utilization', spec: { metrics: [cpuUtilization] } },
  { name: 'no metrics', spec: {} },
  { name: 'resource average value', spec: { metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'AverageValue', averageValue: '300m' } } }] } },
  { name: 'pods average value', spec: { metrics: [{ type: 'Pods', pods: { metric: { name: 'somemetric' }, target: { type: 'AverageValue', averageValue: '300m' } } }] } },
  {
    name: 'container resource utilization',
    spec: { metrics: [{ type: 'ContainerResource', containerResource: { name: 'cpu', container: 'test-container', target: { type: 'Utilization', averageUtilization: 70 } } }] },
  },
  {
    name: 'container resource average value',
    spec: { metrics: [{ type: 'ContainerResource', containerResource: { name: 'cpu', container: 'test-container', target: { type: 'AverageValue', averageValue: '300m' } } }] },
  },
  {
    name: 'object value',
    spec: {
      metrics: [
        { type: 'Object', object: { describedObject: { kind: 'ReplicationController', name: 'myrc' }, metric: { name: 'somemetric' }, target: { type: 'Value', value: '300m' } } },
      ],
    },
  },
  { name: 'external value', spec: { metrics: [{ type: 'External', external: { metric: { name: 'somemetric', selector: labelSelector }, target: { type: 'Value', value: '300m' } } }] } },
  {
    name: 'external average value',
    spec: { metrics: [{ type: 'External', external: { metric: { name: 'somemetric', selector: labelSelector }, target: { type: 'AverageValue', averageValue: '300m' } } }] },
  },
];

for (const tc of successCases) {
  test(`HPA: ${tc.name} is valid`, () => {
    assert.deepEqual(errorsOf(hpa(tc.spec)), []);
  });
}

const containerCpu = (target: object, container = 'test-application'): MetricSpec => ({ type: 'ContainerResource', containerResource: { name: 'cpu', container, target } as never });
const external = (metric: object, target?: object): MetricSpec => ({ type: 'External', external: { metric, ...(target !== undefined ? { target } : {}) } as never });
const quantity = (text: string): string => goQuantity(text)?.value.repr ?? '';

const errorCases: { name: string; spec: Partial<Spec>; want: string[] }[] = [
  { name: 'scaleTargetRef.kind: Required', spec: { scaleTargetRef: { name: 'myrc' } as never, metrics: [cpuUtilization] }, want: ['spec.scaleTargetRef.kind: Required value'] },
  {
    name: 'scaleTargetRef.kind: Required (container resource)',
    spec: { scaleTargetRef: { name: 'myrc' } as never, metrics: [containerCpu({ type: 'Utilization', averageUtilization: 70 })] },
    want: ['spec.scaleTargetRef.kind: Required value'],
  },
  { name: 'scaleTargetRef.kind: Invalid', spec: { scaleTargetRef: { kind: '..', name: 'myrc' }, metrics: [cpuUtilization] }, want: [`spec.scaleTargetRef.kind: Invalid value: "..": may not be '..'`] },
  {
    name: 'scaleTargetRef.kind: Invalid (container resource)',
    spec: { scaleTargetRef: { kind: '..', name: 'myrc' }, metrics: [containerCpu({ type: 'Utilization', averageUtilization: 70 })] },
    want: [`spec.scaleTargetRef.kind: Invalid value: "..": may not be '..'`],
  },
  { name: 'scaleTargetRef.name: Required', spec: { scaleTargetRef: { kind: 'ReplicationController' } as never, metrics: [cpuUtilization] }, want: ['spec.scaleTargetRef.name: Required value'] },
  {
    name: 'scaleTargetRef.name: Required (container resource)',
    spec: { scaleTargetRef: { kind: 'ReplicationController' } as never, metrics: [containerCpu({ type: 'Utilization', averageUtilization: 70 })] },
    want: ['spec.scaleTargetRef.name: Required value'],
  },
  {
    name: 'scaleTargetRef.name: Invalid',
    spec: { scaleTargetRef: { kind: 'ReplicationController', name: '..' }, metrics: [cpuUtilization] },
    want: [`spec.scaleTargetRef.name: Invalid value: "..": may not be '..'`],
  },
  {
    name: 'scaleTargetRef.name: Invalid (container resource)',
    spec: { scaleTargetRef: { kind: 'ReplicationController', name: '..' }, metrics: [containerCpu({ type: 'Utilization', averageUtilization: 70 })] },
    want: [`spec.scaleTargetRef.name: Invalid value: "..": may not be '..'`],
  },
  {
    name: 'must be greater than or equal to 1',
    spec: { scaleTargetRef: {} as never, minReplicas: -1 },
    want: ['spec.minReplicas: Invalid value: -1: must be greater than or equal to 1', 'spec.scaleTargetRef.kind: Required value', 'spec.scaleTargetRef.name: Required value'],
  },
  {
    name: 'must be greater than or equal to `minReplicas`',
    spec: { scaleTargetRef: {} as never, minReplicas: 7 },
    want: ['spec.maxReplicas: Invalid value: 5: must be greater than or equal to `minReplicas`', 'spec.scaleTargetRef.kind: Required value', 'spec.scaleTargetRef.name: Required value'],
  },
  {
    name: 'may not set both a target raw value and a target utilization',
    spec: { metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70, averageValue: '300m' } } }] },
    want: [`${m0}.resource.target.averageValue: Forbidden: may not set both a target raw value and a target utilization`],
  },
  {
    name: 'may not set both a target raw value and a target utilization (container resource)',
    spec: { metrics: [containerCpu({ type: 'Utilization', averageUtilization: 70, averageValue: '300m' })] },
    want: [`${m0}.containerResource.target.averageValue: Forbidden: may not set both a target raw value and a target utilization`],
  },
  {
    name: 'must specify a resource name',
    spec: { metrics: [{ type: 'Resource', resource: { target: { type: 'Utilization', averageUtilization: 70 } } as never }] },
    want: [`${m0}.resource.name: Required value: must specify a resource name`],
  },
  {
    name: 'must specify a resource name (container resource)',
    spec: { metrics: [{ type: 'ContainerResource', containerResource: { container: 'test-application', target: { type: 'Utilization', averageUtilization: 70 } } as never }] },
    want: [`${m0}.containerResource.name: Required value: must specify a resource name`],
  },
  {
    name: 'Invalid value: InvalidResource: must be a standard resource type or fully qualified',
    spec: { metrics: [{ type: 'ContainerResource', containerResource: { name: 'InvalidResource', container: 'test-application', target: { type: 'Utilization', averageUtilization: 70 } } }] },
    want: [
      `${m0}.containerResource.name: Invalid value: InvalidResource: must be a standard resource type or fully qualified`,
      `${m0}.containerResource.name: Invalid value: InvalidResource: must be a standard resource for containers`,
    ],
  },
  {
    name: 'must be greater than 0',
    spec: { metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: -10 } } }] },
    want: [`${m0}.resource.target.averageUtilization: Invalid value: -10: must be greater than 0`],
  },
  {
    name: 'must be greater than 0 (container resource)',
    spec: { metrics: [containerCpu({ type: 'Utilization', averageUtilization: -10 })] },
    want: [`${m0}.containerResource.target.averageUtilization: Invalid value: -10: must be greater than 0`],
  },
  {
    name: 'must specify a container',
    spec: { metrics: [{ type: 'ContainerResource', containerResource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: -10 } } as never }] },
    want: [`${m0}.containerResource.container: Required value: must specify a container`, `${m0}.containerResource.target.averageUtilization: Invalid value: -10: must be greater than 0`],
  },
  {
    name: 'Invalid value: "---***"',
    spec: { metrics: [containerCpu({ type: 'Utilization', averageUtilization: -10 }, '---***')] },
    want: [
      `${m0}.containerResource.container: Invalid value: "---***": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
      `${m0}.containerResource.target.averageUtilization: Invalid value: -10: must be greater than 0`,
    ],
  },
  {
    name: 'must set either a target raw value or a target utilization',
    spec: { metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Value' } } }] },
    want: [`${m0}.resource.target.averageUtilization: Required value: must set either a target raw value or a target utilization`],
  },
  {
    name: 'must set either a target raw value or a target utilization (container resource)',
    spec: { metrics: [containerCpu({ type: 'Value' })] },
    want: [`${m0}.containerResource.target.averageUtilization: Required value: must set either a target raw value or a target utilization`],
  },
  {
    name: 'must specify a metric name (pods)',
    spec: { metrics: [{ type: 'Pods', pods: { metric: {} as never, target: { type: 'Value', averageValue: '100m' } } }] },
    want: [`${m0}.pods.metric.name: Required value: must specify a metric name`],
  },
  {
    name: 'must specify a positive target averageValue',
    spec: { metrics: [{ type: 'Pods', pods: { metric: { name: 'somemetric' }, target: { type: 'Value' } } }] },
    want: [`${m0}.pods.target.averageValue: Required value: must specify a positive target averageValue`],
  },
  {
    name: 'must set either a target value or averageValue',
    spec: { metrics: [{ type: 'Object', object: { describedObject: { kind: 'ReplicationController', name: 'myrc' }, metric: { name: 'somemetric' }, target: { type: 'Value' } } }] },
    want: [`${m0}.object.target.averageValue: Required value: must set either a target value or averageValue`],
  },
  {
    name: 'object.describedObject.kind: Required',
    spec: { metrics: [{ type: 'Object', object: { describedObject: { name: 'myrc' } as never, metric: { name: 'somemetric' }, target: { type: 'Value', value: '100m' } } }] },
    want: [`${m0}.object.describedObject.kind: Required value`],
  },
  {
    name: 'must specify a metric name (object)',
    spec: { metrics: [{ type: 'Object', object: { describedObject: { kind: 'ReplicationController', name: 'myrc' }, target: { type: 'Value', value: '100m' } } as never }] },
    want: [`${m0}.object.metric.name: Required value: must specify a metric name`],
  },
  {
    name: 'must specify a metric name (external)',
    spec: { metrics: [external({ selector: labelSelector }, { type: 'Value', value: '300m' })] },
    want: [`${m0}.external.metric.name: Required value: must specify a metric name`],
  },
  {
    name: "'/'",
    spec: { metrics: [external({ name: 'foo/../', selector: labelSelector }, { type: 'Value', value: '300m' })] },
    want: [`${m0}.external.metric.name: Invalid value: "foo/../": may not contain '/'`],
  },
  {
    name: 'must set either a target value for metric or a per-pod target',
    spec: { metrics: [external({ name: 'somemetric', selector: labelSelector }, { type: 'Value' })] },
    want: [`${m0}.external.target.averageValue: Required value: must set either a target value for metric or a per-pod target`],
  },
  {
    name: 'must be positive (value)',
    spec: { metrics: [external({ name: 'somemetric', selector: labelSelector }, { type: 'Value', value: '-300m' })] },
    want: [`${m0}.external.target.value: Invalid value: ${quantity('-300m')}: must be positive`],
  },
  {
    name: 'must be positive (averageValue)',
    spec: { metrics: [external({ name: 'somemetric', selector: labelSelector }, { type: 'Value', averageValue: '-300m' })] },
    want: [`${m0}.external.target.averageValue: Invalid value: ${quantity('-300m')}: must be positive`],
  },
  {
    name: 'may not set both a target value for metric and a per-pod target',
    spec: { metrics: [external({ name: 'somemetric', selector: labelSelector }, { type: 'Value', value: '300m', averageValue: '300m' })] },
    want: [`${m0}.external.target.value: Forbidden: may not set both a target value for metric and a per-pod target`],
  },
  {
    name: 'must be either Utilization, Value, or AverageValue',
    spec: { metrics: [external({ name: 'somemetric', selector: labelSelector }, { type: 'boogity', value: '300m' })] },
    want: [`${m0}.external.target.type: Invalid value: "boogity": must be either Utilization, Value, or AverageValue`],
  },
  {
    name: 'must specify a metric target type',
    spec: { metrics: [external({ name: 'somemetric', selector: labelSelector }, { value: '300m' })] },
    want: [`${m0}.external.target.type: Required value: must specify a metric target type`, `${m0}.external.target.type: Invalid value: "": must be either Utilization, Value, or AverageValue`],
  },
  {
    name: 'must specify a metric target',
    spec: { metrics: [external({ name: 'somemetric', selector: labelSelector })] },
    want: [
      `${m0}.external.target.type: Required value: must specify a metric target type`,
      `${m0}.external.target.type: Invalid value: "": must be either Utilization, Value, or AverageValue`,
      `${m0}.external.target.averageValue: Required value: must set either a target value for metric or a per-pod target`,
    ],
  },
  {
    name: 'must specify a metric source type',
    spec: { metrics: [{} as never] },
    want: [`${m0}.type: Required value: must specify a metric source type`, `${m0}.type: Unsupported value: "": ${supportedSourceTypes}`, `${m0}.type: Unsupported value: "": ${supportedSourceTypes}`],
  },
  {
    name: 'type: Unsupported value',
    spec: { metrics: [{ type: 'InvalidType' }] },
    want: [`${m0}.type: Unsupported value: "InvalidType": ${supportedSourceTypes}`, `${m0}.type: Unsupported value: "InvalidType": ${supportedSourceTypes}`],
  },
  {
    name: 'must populate the given metric source only',
    spec: {
      metrics: [
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'AverageValue', averageValue: '100m' } },
          pods: { metric: { name: 'somemetric' }, target: { type: 'AverageValue', averageValue: '100m' } },
        },
      ],
    },
    want: [`${m0}.pods: Forbidden: must populate the given metric source only`],
  },
];

for (const tc of errorCases) {
  test(`HPA: ${tc.name}`, () => {
    assert.deepEqual(errorsOf(hpa(tc.spec)), tc.want);
  });
}

const sourceTypes: Record<string, MetricSpec> = {
  Resource: { type: '', resource: { name: 'cpu', target: { type: 'AverageValue', averageValue: '100m' } } },
  ContainerResource: { type: '', containerResource: { name: 'cpu', container: 'test-application', target: { type: 'AverageValue', averageValue: '100m' } } },
  Pods: { type: '', pods: { metric: { name: 'somemetric' }, target: { type: 'AverageValue', averageValue: '100m' } } },
  Object: { type: '', object: { describedObject: { kind: 'ReplicationController', name: 'myrc' }, metric: { name: 'somemetric' }, target: { type: 'Value', value: '100m' } } },
};
const sourceField: Record<string, string> = { Resource: 'resource', ContainerResource: 'containerResource', Pods: 'pods', Object: 'object' };

for (const correct of Object.keys(sourceTypes)) {
  for (const incorrect of Object.keys(sourceTypes)) {
    if (correct === incorrect) continue;
    test(`HPA: the ${correct} source under type ${incorrect}: must populate information for the given metric source`, () => {
      const spec: MetricSpec = { ...sourceTypes[correct], type: incorrect };
      assert.deepEqual(errorsOf(hpa({ metrics: [spec] })), [`${m0}.${sourceField[incorrect] ?? ''}: Required value: must populate information for the given metric source`]);
    });
  }
}

// ---- scale to zero (HPAScaleToZero is alpha and off in 1.32) ----

function minReplicasCases(minReplicas: number): HorizontalPodAutoscaler[] {
  const meta = { name: 'myautoscaler', namespace: 'default', resourceVersion: 'theversion' };
  return [
    {
      metadata: meta,
      spec: {
        scaleTargetRef: { kind: 'ReplicationController', name: 'myrc' },
        minReplicas,
        maxReplicas: 5,
        metrics: [{ type: 'Object', object: { describedObject: { kind: 'ReplicationController', name: 'myrc' }, metric: { name: 'somemetric' }, target: { type: 'Value', value: '300m' } } }],
      },
    },
    {
      metadata: meta,
      spec: {
        scaleTargetRef: { kind: 'ReplicationController', name: 'myrc' },
        minReplicas,
        maxReplicas: 5,
        metrics: [{ type: 'External', external: { metric: { name: 'somemetric', selector: labelSelector }, target: { type: 'AverageValue', averageValue: '300m' } } }],
      },
    },
  ];
}

test('scale to zero disabled: minReplicas 0 is refused on create; 1 is valid', () => {
  for (const h of minReplicasCases(0)) assert.deepEqual(errorsOf(h), ['spec.minReplicas: Invalid value: 0: must be greater than or equal to 1']);
  for (const h of minReplicasCases(1)) assert.deepEqual(errorsOf(h), []);
});

test('scale to zero disabled: an update may keep a stored 0 or leave it, but not set it', () => {
  const zero = minReplicasCases(0);
  const nonZero = minReplicasCases(1);
  zero.forEach((z, i) => {
    const n = nonZero[i] as HorizontalPodAutoscaler;
    assert.deepEqual(errorsOf(z, n), ['spec.minReplicas: Invalid value: 0: must be greater than or equal to 1']);
    assert.deepEqual(errorsOf(z, z), []);
    assert.deepEqual(errorsOf(n, z), []);
  });
});

test('a stored minReplicas 0 still needs an Object or External metric', () => {
  const old = hpa({ minReplicas: 0, metrics: [cpuUtilization] });
  assert.deepEqual(errorsOf(hpa({ minReplicas: 0, metrics: [cpuUtilization] }), old), [
    'spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas',
  ]);
});

test('maxReplicas must be positive', () => {
  assert.deepEqual(errorsOf(hpa({ maxReplicas: 0 })), ['spec.maxReplicas: Invalid value: 0: must be greater than 0', 'spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`']);
});

test('status update: replica counts are non-negative; the spec is not validated', () => {
  const old = hpa({ maxReplicas: 0 });
  const next: HorizontalPodAutoscaler = { ...old, status: { currentReplicas: -1, desiredReplicas: -2 } };
  assert.deepEqual(validate(kind, next, old, { subresource: 'status' }).map(fieldErrorString), [
    'status.currentReplicas: Invalid value: -1: must be greater than or equal to 0',
    'status.desiredReplicas: Invalid value: -2: must be greater than or equal to 0',
  ]);
});

test('quantities print as Go prints a resource.Quantity struct', () => {
  const cases: [string, string][] = [
    ['-300m', 'resource.Quantity{i:resource.int64Amount{value:-300, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"-300m", Format:"DecimalSI"}'],
    ['0', 'resource.Quantity{i:resource.int64Amount{value:0, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"0", Format:"DecimalSI"}'],
    ['0m', 'resource.Quantity{i:resource.int64Amount{value:0, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"", Format:"DecimalSI"}'],
    ['-0.3', 'resource.Quantity{i:resource.int64Amount{value:-3, scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"", Format:"DecimalSI"}'],
    ['-1Gi', 'resource.Quantity{i:resource.int64Amount{value:-1073741824, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"-1Gi", Format:"BinarySI"}'],
    ['-2e3', 'resource.Quantity{i:resource.int64Amount{value:-2, scale:3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"-2e3", Format:"DecimalExponent"}'],
  ];
  for (const [text, repr] of cases) assert.equal(goQuantity(text)?.value.repr, repr, text);
  assert.equal(goQuantity('300m')?.sign, 1);
  assert.equal(goQuantity('nope'), undefined);
});

test('an autoscaling/v1 CPU target is validated in its stored v2 form, at the internal path', () => {
  const v1 = { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h', namespace: 'default' }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 3, targetCPUUtilizationPercentage: 0 } };
  assert.deepEqual(errorsOf(hpaV1ToV2(v1) as HorizontalPodAutoscaler), [`${m0}.resource.target.averageUtilization: Invalid value: 0: must be greater than 0`]);
});
