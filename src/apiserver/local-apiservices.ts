/**
 * The local APIServices of kube-apiserver 1.32: its autoregister controller creates one at start for each
 * built-in group/version the server serves (`makeAPIService` in `pkg/controlplane/apiserver/aggregator.go`,
 * registered with `AddAPIServiceToSyncOnStart`, hence the `onstart` label), with the priorities of
 * `DefaultGenericAPIServicePriorities` merged with kube-apiserver's own `apiVersionPriorities`
 * (`cmd/kube-apiserver/app`), and kube-aggregator's availability controller marks each one available
 * (`NewLocalAvailableAPIServiceCondition`). A group/version missing from the table gets no APIService, as
 * upstream (`Skipping APIService creation`): apiregistration.k8s.io/v1 itself, and custom resources.
 */
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';

/** apiregistration.k8s.io/v1 APIService, as it travels (kubernetes-types has no such group). */
export interface APIService {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: {
    service?: { namespace?: string; name?: string; port?: number } | null;
    /** Left out for the core group (`omitempty`). */
    group?: string;
    version?: string;
    insecureSkipTLSVerify?: boolean;
    caBundle?: string;
    groupPriorityMinimum?: number;
    versionPriority?: number;
  };
  status?: { conditions?: APIServiceCondition[] };
}

export interface APIServiceCondition {
  type?: string;
  status?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface APIServicePriority {
  /** `GroupPriorityMinimum`: the order of the group relative to other groups. */
  group: number;
  /** `VersionPriority`: the order of the version within its group. */
  version: number;
}

/** Label the autoregister controller puts on what it manages; `onstart` for the built-in group/versions. */
export const automanagedLabel = 'kube-aggregator.kubernetes.io/automanaged';

/**
 * kube-apiserver's priorities by API version (`v1`, `apps/v1`), for the generally available group/versions
 * (the alpha and beta rows of upstream's table are left out: kubemix serves none of those versions).
 */
export const apiVersionPriorities: ReadonlyMap<string, APIServicePriority> = new Map([
  ['v1', { group: 18000, version: 1 }],
  ['apps/v1', { group: 17800, version: 15 }],
  ['events.k8s.io/v1', { group: 17750, version: 15 }],
  ['authentication.k8s.io/v1', { group: 17700, version: 15 }],
  ['authorization.k8s.io/v1', { group: 17600, version: 15 }],
  ['autoscaling/v1', { group: 17500, version: 15 }],
  ['autoscaling/v2', { group: 17500, version: 30 }],
  ['batch/v1', { group: 17400, version: 15 }],
  ['certificates.k8s.io/v1', { group: 17300, version: 15 }],
  ['networking.k8s.io/v1', { group: 17200, version: 15 }],
  ['policy/v1', { group: 17100, version: 15 }],
  ['rbac.authorization.k8s.io/v1', { group: 17000, version: 15 }],
  ['storage.k8s.io/v1', { group: 16800, version: 15 }],
  ['apiextensions.k8s.io/v1', { group: 16700, version: 15 }],
  ['admissionregistration.k8s.io/v1', { group: 16700, version: 15 }],
  ['scheduling.k8s.io/v1', { group: 16600, version: 15 }],
  ['coordination.k8s.io/v1', { group: 16500, version: 15 }],
  ['node.k8s.io/v1', { group: 16300, version: 15 }],
  ['discovery.k8s.io/v1', { group: 16200, version: 15 }],
  ['flowcontrol.apiserver.k8s.io/v1', { group: 16100, version: 21 }],
]);

/** `makeAPIService`: the APIService `<version>.<group>` (`v1.` for the core group), or undefined off the table. */
export function localAPIService(group: string, version: string): APIService | undefined {
  const priority = apiVersionPriorities.get(group === '' ? version : `${group}/${version}`);
  if (priority === undefined) return undefined;
  return {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: `${version}.${group}`, labels: { [automanagedLabel]: 'onstart' } },
    spec: {
      ...(group !== '' ? { group } : {}),
      version,
      groupPriorityMinimum: priority.group,
      versionPriority: priority.version,
    },
  };
}

/** `NewLocalAvailableAPIServiceCondition`; `lastTransitionTime` is RFC 3339. */
export function localAvailableCondition(lastTransitionTime: string): APIServiceCondition {
  return { type: 'Available', status: 'True', lastTransitionTime, reason: 'Local', message: 'Local APIServices are always available' };
}

