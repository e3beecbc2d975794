/**
 * The controllers the manager can run, by `--controllers` name. An explicit map: registering a name twice
 * throws.
 */
import type { Controller, ControllerContext } from './_context.js';
import { names } from './names.js';
import * as cronjob from './cronjob/cronjob.js';
import * as daemonset from './daemonset/daemonset.js';
import * as deployment from './deployment/deployment.js';
import * as disruption from './disruption/disruption.js';
import * as endpoints from './endpoints/endpoints.js';
import * as endpointslice from './endpointslice/endpointslice.js';
import * as horizontalPodAutoscaler from './horizontal-pod-autoscaler/horizontal-pod-autoscaler.js';
import * as job from './job/job.js';
import * as garbageCollector from './garbage-collector/garbage-collector.js';
import * as namespace from './namespace/namespace.js';
import * as nodeLifecycle from './node-lifecycle/node-lifecycle.js';
import * as replicaset from './replicaset/replicaset.js';
import * as resourceQuota from './resourcequota/resourcequota.js';
import * as csrSigning from './csr-signing/csr-signing.js';
import * as tokenCleaner from './bootstrap-token-cleaner/bootstrap-token-cleaner.js';
import * as bootstrapSigner from './bootstrap-token-cleaner/bootstrap-signer.js';
import * as podgc from './podgc/podgc.js';
import * as statefulset from './statefulset/statefulset.js';
import * as taintEviction from './taint-eviction/taint-eviction.js';
import * as ttlAfterFinished from './ttl-after-finished/ttl-after-finished.js';
import * as ttl from './ttl/ttl.js';
import * as serviceAccount from './serviceaccount/serviceaccount.js';
import * as serviceAccountTokens from './serviceaccount/tokens-controller.js';
import * as rootCAPublisher from './root-ca-publisher/root-ca-publisher.js';
import * as persistentVolume from './persistentvolume/persistentvolume.js';
import * as pvcProtection from './pvc-protection/pvc-protection.js';
import * as pvProtection from './pv-protection/pv-protection.js';
import * as validatingAdmissionPolicyStatus from './validating-admission-policy-status/validating-admission-policy-status.js';

/** Options some controllers take (kube-controller-manager flags). */
export interface ControllerOptions {
  nodeMonitorGracePeriodMs?: number;
  nodeStartupGracePeriodMs?: number;
  nodeMonitorPeriodMs?: number;
  evictionLimiterQps?: number;
  secondaryEvictionLimiterQps?: number;
  largeClusterThreshold?: number;
  unhealthyZoneThreshold?: number;
  /** The cluster CA the root-ca-certificate-publisher puts in every namespace (`--root-ca-file`). */
  rootCAPem?: string;
  /** `--service-account-private-key-file`: signs legacy service account token Secrets (without it the token controller is disabled). */
  serviceAccountPrivateKeyPem?: string;
  /** The CA that signs kubelet client CSRs (`--cluster-signing-cert-file`/`--cluster-signing-key-file`); without it CSRs are approved, not signed. */
  clusterSigningCertPem?: string;
  clusterSigningKeyPem?: string;
  /** `--horizontal-pod-autoscaler-sync-period` (default 15 s). */
  horizontalPodAutoscalerSyncPeriodMs?: number;
  /** `--horizontal-pod-autoscaler-downscale-stabilization` (default 5 min). */
  horizontalPodAutoscalerDownscaleStabilizationMs?: number;
}

export type ControllerFactory = (ctx: ControllerContext, opts: ControllerOptions) => Controller;

function register(m: Map<string, ControllerFactory>, name: string, f: ControllerFactory): void {
  if (m.has(name)) throw new Error(`controller ${name} registered twice`);
  m.set(name, f);
}

export function controllerFactories(): Map<string, ControllerFactory> {
  const m = new Map<string, ControllerFactory>();
  register(m, names.ReplicaSet, (ctx) => replicaset.create(ctx));
  register(m, names.ReplicationController, (ctx) => replicaset.createReplicationManager(ctx));
  register(m, names.Deployment, (ctx) => deployment.create(ctx));
  register(m, names.DaemonSet, (ctx) => daemonset.create(ctx));
  register(m, names.NodeLifecycle, (ctx, o) => {
    const opts: nodeLifecycle.NodeLifecycleOptions = {};
    if (o.nodeMonitorGracePeriodMs !== undefined) opts.nodeMonitorGracePeriodMs = o.nodeMonitorGracePeriodMs;
    if (o.nodeStartupGracePeriodMs !== undefined) opts.nodeStartupGracePeriodMs = o.nodeStartupGracePeriodMs;
    if (o.nodeMonitorPeriodMs !== undefined) opts.nodeMonitorPeriodMs = o.nodeMonitorPeriodMs;
    if (o.evictionLimiterQps !== undefined) opts.evictionLimiterQps = o.evictionLimiterQps;
    if (o.secondaryEvictionLimiterQps !== undefined) opts.secondaryEvictionLimiterQps = o.secondaryEvictionLimiterQps;
    if (o.largeClusterThreshold !== undefined) opts.largeClusterThreshold = o.largeClusterThreshold;
    if (o.unhealthyZoneThreshold !== undefined) opts.unhealthyZoneThreshold = o.unhealthyZoneThreshold;
    return nodeLifecycle.create(ctx, opts);
  });
  register(m, names.TaintEviction, (ctx) => taintEviction.create(ctx));
  register(m, names.ServiceAccount, (ctx) => serviceAccount.create(ctx));
  register(m, names.ServiceAccountToken, (ctx, o) =>
    serviceAccountTokens.create(ctx, {
      ...(o.serviceAccountPrivateKeyPem !== undefined ? { privateKeyPem: o.serviceAccountPrivateKeyPem } : {}),
      ...(o.rootCAPem !== undefined ? { rootCAPem: o.rootCAPem } : {}),
    }),
  );
  register(m, names.RootCACertPublisher, (ctx, o) => rootCAPublisher.create(ctx, o.rootCAPem ?? ''));
  register(m, names.Endpoints, (ctx) => endpoints.create(ctx));
  register(m, names.EndpointSlice, (ctx) => endpointslice.create(ctx));
  register(m, names.GarbageCollector, (ctx) => garbageCollector.create(ctx));
  register(m, names.Namespace, (ctx) => namespace.create(ctx));
  register(m, names.Disruption, (ctx) => disruption.create(ctx));
  register(m, names.HorizontalPodAutoscaler, (ctx, o) =>
    horizontalPodAutoscaler.create(ctx, {
      ...(o.horizontalPodAutoscalerSyncPeriodMs !== undefined ? { syncPeriodMs: o.horizontalPodAutoscalerSyncPeriodMs } : {}),
      ...(o.horizontalPodAutoscalerDownscaleStabilizationMs !== undefined ? { downscaleStabilizationWindowMs: o.horizontalPodAutoscalerDownscaleStabilizationMs } : {}),
    }),
  );
  register(m, names.StatefulSet, (ctx) => statefulset.create(ctx));
  register(m, names.Job, (ctx) => job.create(ctx));
  register(m, names.CronJob, (ctx) => cronjob.create(ctx));
  register(m, names.PodGC, (ctx) => podgc.create(ctx));
  register(m, names.TTLAfterFinished, (ctx) => ttlAfterFinished.create(ctx));
  register(m, names.TTL, (ctx) => ttl.create(ctx));
  register(m, names.ResourceQuota, (ctx) => resourceQuota.create(ctx));
  register(m, names.CertificateSigning, (ctx, o) =>
    csrSigning.create(ctx, o.clusterSigningCertPem === undefined || o.clusterSigningKeyPem === undefined ? {} : { ca: { certPem: o.clusterSigningCertPem, keyPem: o.clusterSigningKeyPem } }),
  );
  register(m, names.TokenCleaner, (ctx) => tokenCleaner.create(ctx));
  register(m, names.BootstrapSigner, (ctx) => bootstrapSigner.create(ctx));
  register(m, names.PersistentVolumeBinder, (ctx) => persistentVolume.create(ctx));
  register(m, names.PersistentVolumeClaimProtection, (ctx) => pvcProtection.create(ctx));
  register(m, names.PersistentVolumeProtection, (ctx) => pvProtection.create(ctx));
  register(m, names.ValidatingAdmissionPolicyStatus, (ctx) => validatingAdmissionPolicyStatus.create(ctx));
  return m;
}

/**
 * `--controllers` semantics: `*` enables every registered controller, `name` enables one, `-name` disables
 * one (which wins over `*`). Unknown names throw.
 */
export function selectControllers(flags: readonly string[]): string[] {
  const all = [...controllerFactories().keys()];
  const known = new Set(all);
  const on = new Set<string>();
  const off = new Set<string>();
  let star = false;
  for (const f of flags) {
    if (f === '*') star = true;
    else if (f.startsWith('-')) {
      if (!known.has(f.slice(1))) throw new Error(`"${f.slice(1)}" is not in the list of known controllers`);
      off.add(f.slice(1));
    } else {
      if (!known.has(f)) throw new Error(`"${f}" is not in the list of known controllers`);
      on.add(f);
    }
  }
  return all.filter((n) => !off.has(n) && (star || on.has(n)));
}
