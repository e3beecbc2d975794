/**
 * The API Priority and Fairness configuration kube-apiserver 1.32 creates at start: the mandatory and
 * suggested PriorityLevelConfigurations and FlowSchemas of upstream
 * `k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap/default.go`, as the flowcontrol.apiserver.k8s.io/v1
 * objects its configuration producer writes, and the FlowSchema status its configuration consumer writes
 * (`k8s.io/apiserver/pkg/util/flowcontrol/apf_controller.go`, `presyncFlowSchemaStatus`). The controller
 * writes no PriorityLevelConfiguration status, so those keep `status: {}`.
 *
 * The objects are listed in upstream's order (mandatory, then suggested) and built with the same helpers, so
 * a reader can hold the two files side by side. Fields Go leaves out (`omitempty`: a false `clusterScope`, a
 * nil `distinguisherMethod`) are left out here too.
 */
import type {
  FlowSchema,
  FlowSchemaCondition,
  NonResourcePolicyRule,
  PolicyRulesWithSubjects,
  PriorityLevelConfiguration,
  PriorityLevelConfigurationSpec,
  ResourcePolicyRule,
  Subject,
} from 'kubernetes-types/flowcontrol/v1.js';
import { compareStrings } from '../util/compare-strings.js';

/** `flowcontrol.AutoUpdateAnnotationKey`: the server keeps the spec of an object so annotated up to date. */
export const autoUpdateAnnotationKey = 'apf.kubernetes.io/autoupdate-spec';

/** Field managers of kube-apiserver's APF configuration producer (objects) and consumer (FlowSchema status). */
export const configProducerFieldManager = 'api-priority-and-fairness-config-producer-v1';
export const configConsumerFieldManager = 'api-priority-and-fairness-config-consumer-v1';

const all = '*';
const namespaceSystem = 'kube-system';
const getCreateUpdate = ['get', 'create', 'update'];

function newPriorityLevelConfiguration(name: string, spec: PriorityLevelConfigurationSpec): PriorityLevelConfiguration {
  return {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'PriorityLevelConfiguration',
    metadata: { name, annotations: { [autoUpdateAnnotationKey]: 'true' } },
    spec,
  };
}

/** A limited level that queues: nominal shares, lendable percent, queues, hand size, queue length limit. */
function queuing(nominalConcurrencyShares: number, lendablePercent: number, queues: number, handSize: number, queueLengthLimit: number): PriorityLevelConfigurationSpec {
  return {
    type: 'Limited',
    limited: { nominalConcurrencyShares, limitResponse: { type: 'Queue', queuing: { queues, handSize, queueLengthLimit } }, lendablePercent },
  };
}

function newFlowSchema(name: string, plName: string, matchingPrecedence: number, distinguisher: 'ByUser' | 'ByNamespace' | '', rules: PolicyRulesWithSubjects): FlowSchema {
  return {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'FlowSchema',
    metadata: { name, annotations: { [autoUpdateAnnotationKey]: 'true' } },
    spec: {
      priorityLevelConfiguration: { name: plName },
      matchingPrecedence,
      ...(distinguisher !== '' ? { distinguisherMethod: { type: distinguisher } } : {}),
      rules: [rules],
    },
  };
}

function groups(...names: string[]): Subject[] {
  return names.map((name) => ({ kind: 'Group', group: { name } }));
}

function users(...names: string[]): Subject[] {
  return names.map((name) => ({ kind: 'User', user: { name } }));
}

function kubeSystemServiceAccount(...names: string[]): Subject[] {
  return names.map((name) => ({ kind: 'ServiceAccount', serviceAccount: { name, namespace: namespaceSystem } }));
}

function resourceRule(verbs: string[], apiGroups: string[], resources: string[], namespaces: string[], clusterScope: boolean): ResourcePolicyRule {
  return { verbs, apiGroups, resources, ...(clusterScope ? { clusterScope } : {}), namespaces };
}

function nonResourceRule(verbs: string[], nonResourceURLs: string[]): NonResourcePolicyRule {
  return { verbs, nonResourceURLs };
}

/** Every verb on every resource and every non-resource URL, for `subjects`. */
function everything(subjects: Subject[]): PolicyRulesWithSubjects {
  return {
    subjects,
    resourceRules: [resourceRule([all], [all], [all], [all], true)],
    nonResourceRules: [nonResourceRule([all], [all])],
  };
}

// Mandatory PriorityLevelConfiguration objects.
const mandatoryPriorityLevelConfigurationExempt = newPriorityLevelConfiguration('exempt', {
  type: 'Exempt',
  exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 },
});
const mandatoryPriorityLevelConfigurationCatchAll = newPriorityLevelConfiguration('catch-all', {
  type: 'Limited',
  limited: { nominalConcurrencyShares: 5, limitResponse: { type: 'Reject' }, lendablePercent: 0 },
});

// Mandatory FlowSchema objects.
const mandatoryFlowSchemaExempt = newFlowSchema('exempt', 'exempt', 1, '', everything(groups('system:masters')));
const mandatoryFlowSchemaCatchAll = newFlowSchema('catch-all', 'catch-all', 10000, 'ByUser', everything(groups('system:unauthenticated', 'system:authenticated')));

// Suggested PriorityLevelConfiguration objects.
const suggestedPriorityLevelConfigurationSystem = newPriorityLevelConfiguration('system', queuing(30, 33, 64, 6, 50));
const suggestedPriorityLevelConfigurationNodeHigh = newPriorityLevelConfiguration('node-high', queuing(40, 25, 64, 6, 50));
const suggestedPriorityLevelConfigurationLeaderElection = newPriorityLevelConfiguration('leader-election', queuing(10, 0, 16, 4, 50));
const suggestedPriorityLevelConfigurationWorkloadHigh = newPriorityLevelConfiguration('workload-high', queuing(40, 50, 128, 6, 50));
const suggestedPriorityLevelConfigurationWorkloadLow = newPriorityLevelConfiguration('workload-low', queuing(100, 90, 128, 6, 50));
const suggestedPriorityLevelConfigurationGlobalDefault = newPriorityLevelConfiguration('global-default', queuing(20, 50, 128, 6, 50));

// Suggested FlowSchema objects, in matching precedence order as upstream declares them.
const suggestedFlowSchemaProbes = newFlowSchema('probes', 'exempt', 2, '', {
  subjects: groups('system:unauthenticated', 'system:authenticated'),
  nonResourceRules: [nonResourceRule(['get'], ['/healthz', '/readyz', '/livez'])],
});
const suggestedFlowSchemaSystemLeaderElection = newFlowSchema('system-leader-election', 'leader-election', 100, 'ByUser', {
  subjects: [...users('system:kube-controller-manager', 'system:kube-scheduler'), ...kubeSystemServiceAccount(all)],
  resourceRules: [resourceRule(getCreateUpdate, ['coordination.k8s.io'], ['leases'], [all], false)],
});
// Upstream: an explicit rule for the endpoint controller, ahead of workload-leader-election, so that its
// Endpoints writes are not taken for leader election.
const suggestedFlowSchemaEndpointsController = newFlowSchema('endpoint-controller', 'workload-high', 150, 'ByUser', {
  subjects: [...users('system:kube-controller-manager'), ...kubeSystemServiceAccount('endpoint-controller', 'endpointslicemirroring-controller')],
  resourceRules: [resourceRule(getCreateUpdate, [''], ['endpoints'], [all], false)],
});
const suggestedFlowSchemaWorkloadLeaderElection = newFlowSchema('workload-leader-election', 'leader-election', 200, 'ByUser', {
  subjects: kubeSystemServiceAccount(all),
  resourceRules: [
    resourceRule(getCreateUpdate, [''], ['endpoints', 'configmaps'], [all], false),
    resourceRule(getCreateUpdate, ['coordination.k8s.io'], ['leases'], [all], false),
  ],
});
const suggestedFlowSchemaSystemNodeHigh = newFlowSchema('system-node-high', 'node-high', 400, 'ByUser', {
  subjects: groups('system:nodes'),
  resourceRules: [
    resourceRule([all], [''], ['nodes', 'nodes/status'], [all], true),
    resourceRule([all], ['coordination.k8s.io'], ['leases'], [all], false),
  ],
});
const suggestedFlowSchemaSystemNodes = newFlowSchema('system-nodes', 'system', 500, 'ByUser', everything(groups('system:nodes')));
const suggestedFlowSchemaKubeControllerManager = newFlowSchema('kube-controller-manager', 'workload-high', 800, 'ByNamespace', everything(users('system:kube-controller-manager')));
const suggestedFlowSchemaKubeScheduler = newFlowSchema('kube-scheduler', 'workload-high', 800, 'ByNamespace', everything(users('system:kube-scheduler')));
const suggestedFlowSchemaKubeSystemServiceAccounts = newFlowSchema('kube-system-service-accounts', 'workload-high', 900, 'ByNamespace', everything(kubeSystemServiceAccount(all)));
const suggestedFlowSchemaServiceAccounts = newFlowSchema('service-accounts', 'workload-low', 9000, 'ByUser', everything(groups('system:serviceaccounts')));
const suggestedFlowSchemaGlobalDefault = newFlowSchema('global-default', 'global-default', 9900, 'ByUser', everything(groups('system:unauthenticated', 'system:authenticated')));

/** `MandatoryPriorityLevelConfigurations` then `SuggestedPriorityLevelConfigurations`. */
export const bootstrapPriorityLevelConfigurations: readonly PriorityLevelConfiguration[] = [
  mandatoryPriorityLevelConfigurationCatchAll,
  mandatoryPriorityLevelConfigurationExempt,
  suggestedPriorityLevelConfigurationSystem,
  suggestedPriorityLevelConfigurationNodeHigh,
  suggestedPriorityLevelConfigurationLeaderElection,
  suggestedPriorityLevelConfigurationWorkloadHigh,
  suggestedPriorityLevelConfigurationWorkloadLow,
  suggestedPriorityLevelConfigurationGlobalDefault,
];

/** `MandatoryFlowSchemas` then `SuggestedFlowSchemas`. */
export const bootstrapFlowSchemas: readonly FlowSchema[] = [
  mandatoryFlowSchemaExempt,
  mandatoryFlowSchemaCatchAll,
  suggestedFlowSchemaSystemNodes,
  suggestedFlowSchemaSystemNodeHigh,
  suggestedFlowSchemaProbes,
  suggestedFlowSchemaSystemLeaderElection,
  suggestedFlowSchemaWorkloadLeaderElection,
  suggestedFlowSchemaEndpointsController,
  suggestedFlowSchemaKubeControllerManager,
  suggestedFlowSchemaKubeScheduler,
  suggestedFlowSchemaKubeSystemServiceAccounts,
  suggestedFlowSchemaServiceAccounts,
  suggestedFlowSchemaGlobalDefault,
];

/** `FlowSchemaSequence`: matching precedence first, then name (the order FlowSchemas are tried and listed in). */
export function compareFlowSchemas(a: FlowSchema, b: FlowSchema): number {
  const pa = a.spec?.matchingPrecedence ?? 0;
  const pb = b.spec?.matchingPrecedence ?? 0;
  return pa !== pb ? pa - pb : compareStrings(a.metadata?.name ?? '', b.metadata?.name ?? '');
}

/**
 * The `Dangling` condition the configuration consumer gives a FlowSchema whose priority level `plName` does
 * (`exists`) or does not exist (`presyncFlowSchemaStatus`); `lastTransitionTime` is RFC 3339.
 */
export function danglingCondition(plName: string, exists: boolean, lastTransitionTime: string): FlowSchemaCondition {
  return exists
    ? {
        type: 'Dangling',
        status: 'False',
        lastTransitionTime,
        reason: 'Found',
        message: `This FlowSchema references the PriorityLevelConfiguration object named "${plName}" and it exists`,
      }
    : {
        type: 'Dangling',
        status: 'True',
        lastTransitionTime,
        reason: 'NotFound',
        message: `This FlowSchema references the PriorityLevelConfiguration object named "${plName}" but there is no such object`,
      };
}

