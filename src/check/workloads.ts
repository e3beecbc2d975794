/**
 * The pods each workload's controller would create, built with the controllers' own pod-generation code:
 * ReplicaSet/Deployment (`podFromTemplate`, the pod-template-hash), StatefulSet (`newStatefulSetPod`),
 * DaemonSet (`nodeShouldRunDaemonPod`, `createPodTemplate`, the node-name pinning affinity), Job (the
 * tracking finalizer) and CronJob (one Job of its template). Objects are already defaulted and validated.
 */
import type { Pod, PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import type { DaemonSet, Deployment, ReplicaSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
import type { KubeObject } from '../client/client.js';
import { podFromTemplate } from '../controllers/_pods.js';
import { newControllerRef } from '../controllers/_owner.js';
import { computeHash, DefaultDeploymentUniqueLabelKey } from '../controllers/deployment/_util.js';
import { createPodTemplate, nodeShouldRunDaemonPod, replaceDaemonSetPodNodeNameNodeAffinity, templateGeneration } from '../controllers/daemonset/_util.js';
import { newStatefulSetPod } from '../controllers/statefulset/statefulset.js';
import { JobTrackingFinalizer } from '../controllers/job/job.js';
import { jobName } from '../controllers/cronjob/cronjob.js';
import type { SimNode } from './cluster.js';

export const workloadKinds: ReadonlySet<string> = new Set(['v1/Pod', 'apps/v1/Deployment', 'apps/v1/ReplicaSet', 'apps/v1/StatefulSet', 'apps/v1/DaemonSet', 'batch/v1/Job', 'batch/v1/CronJob']);

/** Kinds that are workloads in any version (removed versions included), by kind name. */
export const workloadKindNames: ReadonlySet<string> = new Set(['Pod', 'Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob']);

export interface WorkloadPods {
  /** A pod of the template as the controller creates it, before any node pinning (for feasibility). */
  templatePod: Pod;
  /** The pods to create, in creation order. */
  pods: Pod[];
  /** DaemonSet only: nodes the controller runs no pod on. */
  skippedNodes?: string[];
}

function replicaSetPods(rs: ReplicaSet, count: number): Pod[] {
  const ref = newControllerRef(rs, 'apps/v1', 'ReplicaSet');
  const ns = rs.metadata?.namespace ?? 'default';
  return Array.from({ length: count }, () => podFromTemplate(rs.spec?.template, ns, ref));
}

/** The ReplicaSet a Deployment's controller creates first (`<name>-<pod-template-hash>`). */
export function newReplicaSet(d: Deployment): ReplicaSet {
  const template = structuredClone<PodTemplateSpec>(d.spec?.template ?? {});
  const hash = computeHash(d.spec?.template, d.status?.collisionCount);
  const tm = (template.metadata ??= {});
  tm.labels = { ...(tm.labels ?? {}), [DefaultDeploymentUniqueLabelKey]: hash };
  const selector = structuredClone(d.spec?.selector ?? {});
  selector.matchLabels = { ...(selector.matchLabels ?? {}), [DefaultDeploymentUniqueLabelKey]: hash };
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `${d.metadata?.name ?? ''}-${hash}`,
      namespace: d.metadata?.namespace ?? 'default',
      uid: `${d.metadata?.uid ?? ''}-rs`,
      ownerReferences: [newControllerRef(d, 'apps/v1', 'Deployment')],
      labels: { ...tm.labels },
    },
    spec: { replicas: d.spec?.replicas ?? 1, selector, template },
  };
}

function jobPods(job: Job): Pod[] {
  const parallelism = job.spec?.parallelism ?? 1;
  const completions = job.spec?.completions ?? undefined;
  const count = completions === undefined ? parallelism : Math.min(parallelism, completions);
  const template = structuredClone<PodTemplateSpec>(job.spec?.template ?? {});
  const m = (template.metadata ??= {});
  m.finalizers = [...(m.finalizers ?? []), JobTrackingFinalizer];
  const ref = newControllerRef(job, 'batch/v1', 'Job');
  const ns = job.metadata?.namespace ?? 'default';
  return Array.from({ length: count }, () => podFromTemplate(template, ns, ref));
}

/** The Job a CronJob's controller creates at its next schedule (before the Job's own defaults). */
export function jobOfCronJob(cj: CronJob): Job {
  const tpl = cj.spec?.jobTemplate;
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: jobName(cj, 0),
      namespace: cj.metadata?.namespace ?? 'default',
      ...(tpl?.metadata?.labels !== undefined ? { labels: { ...tpl.metadata.labels } } : {}),
      ownerReferences: [newControllerRef(cj, 'batch/v1', 'CronJob')],
    },
    spec: structuredClone(tpl?.spec ?? { template: {} }),
  };
}

/**
 * The pods of an accepted workload. `createdJob` is the CronJob's Job after the API server accepted it
 * (the caller creates it through the same dry-run path).
 */
export function podsOfWorkload(obj: KubeObject, nodes: readonly SimNode[], createdJob?: Job): WorkloadPods {
  const kind = `${obj.apiVersion ?? ''}/${obj.kind ?? ''}`;
  switch (kind) {
    case 'v1/Pod': {
      const pod = obj as Pod;
      return { templatePod: pod, pods: [pod] };
    }
    case 'apps/v1/Deployment': {
      const rs = newReplicaSet(obj as Deployment);
      const pods = replicaSetPods(rs, rs.spec?.replicas ?? 1);
      return { templatePod: replicaSetPods(rs, 1)[0] as Pod, pods };
    }
    case 'apps/v1/ReplicaSet': {
      const rs = obj as ReplicaSet;
      return { templatePod: replicaSetPods(rs, 1)[0] as Pod, pods: replicaSetPods(rs, rs.spec?.replicas ?? 1) };
    }
    case 'apps/v1/StatefulSet': {
      const set = obj as StatefulSet;
      const revision = `${set.metadata?.name ?? ''}-${computeHash(set.spec?.template, set.status?.collisionCount)}`;
      const start = set.spec?.ordinals?.start ?? 0;
      const pods = Array.from({ length: set.spec?.replicas ?? 1 }, (_, i) => newStatefulSetPod(set, start + i, revision));
      return { templatePod: newStatefulSetPod(set, start, revision), pods };
    }
    case 'apps/v1/DaemonSet': {
      const ds = obj as DaemonSet;
      const template = createPodTemplate(ds.spec?.template, templateGeneration(ds), '');
      const ref = newControllerRef(ds, 'apps/v1', 'DaemonSet');
      const ns = ds.metadata?.namespace ?? 'default';
      const pods: Pod[] = [];
      const skippedNodes: string[] = [];
      for (const n of nodes) {
        if (!nodeShouldRunDaemonPod(n.node, ds).shouldRun) {
          skippedNodes.push(n.name);
          continue;
        }
        const pod = podFromTemplate(template, ns, ref);
        (pod.spec as { affinity?: unknown }).affinity = replaceDaemonSetPodNodeNameNodeAffinity(pod.spec?.affinity, n.name);
        pods.push(pod);
      }
      return { templatePod: podFromTemplate(template, ns, ref), pods, skippedNodes };
    }
    case 'batch/v1/Job': {
      const job = obj as Job;
      const one = structuredClone(job);
      if (one.spec !== undefined) {
        one.spec.parallelism = 1;
        one.spec.completions = 1;
      }
      return { templatePod: jobPods(one)[0] as Pod, pods: jobPods(job) };
    }
    case 'batch/v1/CronJob': {
      if (createdJob === undefined) return { templatePod: { spec: { containers: [] } }, pods: [] };
      return podsOfWorkload(createdJob, nodes);
    }
    default:
      throw new Error(`not a workload: ${kind}`);
  }
}
