/**
 * The admission plugins kubemix runs, in kube-apiserver's order (`AllOrderedPlugins` of
 * `pkg/kubeapiserver/options/plugins.go`, restricted to the plugins we implement). A plugin with both
 * phases appears in both lists at its position.
 */
import * as certificateSubjectRestriction from './certificate-subject-restriction/certificate-subject-restriction.js';
import * as defaultIngressClass from './default-ingress-class/default-ingress-class.js';
import * as defaultStorageClass from './default-storage-class/default-storage-class.js';
import * as defaultTolerationSeconds from './default-toleration-seconds/default-toleration-seconds.js';
import * as limitRanger from './limit-ranger/limit-ranger.js';
import * as namespaceLifecycle from './namespace-lifecycle/namespace-lifecycle.js';
import * as nodeRestriction from './node-restriction/node-restriction.js';
import * as persistentVolumeClaimResize from './persistent-volume-claim-resize/persistent-volume-claim-resize.js';
import * as podSecurity from './pod-security/pod-security.js';
import * as priority from './priority/priority.js';
import * as resourceQuota from './resource-quota/resource-quota.js';
import * as runtimeClass from './runtime-class/runtime-class.js';
import * as serviceAccount from './service-account/service-account.js';
import * as storageObjectInUseProtection from './storage-object-in-use-protection/storage-object-in-use-protection.js';
import * as taintNodesByCondition from './taint-nodes-by-condition/taint-nodes-by-condition.js';
import * as validatingAdmissionPolicy from './validating-admission-policy/validating-admission-policy.js';
import { names } from './names.js';
import type { AdmissionChain, MutatingPlugin, ValidatingPlugin } from './types.js';

export type AdmissionPlugin = MutatingPlugin | ValidatingPlugin | (MutatingPlugin & ValidatingPlugin);
export type PluginFactory = () => AdmissionPlugin;

export function isMutating(p: AdmissionPlugin): p is MutatingPlugin {
  return typeof (p as Partial<MutatingPlugin>).admit === 'function';
}

export function isValidating(p: AdmissionPlugin): p is ValidatingPlugin {
  return typeof (p as Partial<ValidatingPlugin>).validate === 'function';
}

/** An explicit name -> factory map; registering a name twice throws. */
export class Registry {
  private readonly factories = new Map<string, PluginFactory>();

  register(name: string, factory: PluginFactory): this {
    if (this.factories.has(name)) throw new Error(`admission plugin ${JSON.stringify(name)} registered twice`);
    this.factories.set(name, factory);
    return this;
  }

  names(): string[] {
    return [...this.factories.keys()];
  }

  /** Builds the chain from the named plugins, in the registry's order (not the order given). */
  chain(enabled: readonly string[] = this.names()): AdmissionChain {
    const want = new Set(enabled);
    for (const n of want) if (!this.factories.has(n)) throw new Error(`unknown admission plugin ${JSON.stringify(n)}`);
    const chain: AdmissionChain = { mutating: [], validating: [] };
    for (const [n, f] of this.factories) {
      if (!want.has(n)) continue;
      const p = f();
      if (isMutating(p)) chain.mutating.push(p);
      if (isValidating(p)) chain.validating.push(p);
    }
    return chain;
  }
}

/** The registry in upstream order. */
export function defaultRegistry(): Registry {
  return new Registry()
    .register(names.NamespaceLifecycle, () => namespaceLifecycle.create())
    .register(names.LimitRanger, () => limitRanger.create())
    .register(names.ServiceAccount, () => serviceAccount.create())
    .register(names.NodeRestriction, () => nodeRestriction.create())
    .register(names.TaintNodesByCondition, () => taintNodesByCondition.create())
    .register(names.PodSecurity, () => podSecurity.create())
    .register(names.Priority, () => priority.create())
    .register(names.DefaultTolerationSeconds, () => defaultTolerationSeconds.create())
    .register(names.DefaultStorageClass, () => defaultStorageClass.create())
    .register(names.StorageObjectInUseProtection, () => storageObjectInUseProtection.create())
    .register(names.PersistentVolumeClaimResize, () => persistentVolumeClaimResize.create())
    .register(names.RuntimeClass, () => runtimeClass.create())
    .register(names.CertificateSubjectRestriction, () => certificateSubjectRestriction.create())
    .register(names.DefaultIngressClass, () => defaultIngressClass.create())
    .register(names.ValidatingAdmissionPolicy, () => validatingAdmissionPolicy.create())
    .register(names.ResourceQuota, () => resourceQuota.create());
}

/** Every plugin we implement, as kube-apiserver enables them by default (plus NodeRestriction, as kubeadm does). */
export function defaultAdmissionChain(): AdmissionChain {
  return defaultRegistry().chain();
}

/** Runs the mutating phase (in order; the first refusal throws). */
export async function runMutating(chain: AdmissionChain, a: Parameters<MutatingPlugin['admit']>[0], lookup: Parameters<MutatingPlugin['admit']>[1]): Promise<void> {
  for (const p of chain.mutating) await p.admit(a, lookup);
}

/** Runs the validating phase (in order; the first refusal throws). */
export async function runValidating(chain: AdmissionChain, a: Parameters<ValidatingPlugin['validate']>[0], lookup: Parameters<ValidatingPlugin['validate']>[1]): Promise<void> {
  for (const p of chain.validating) await p.validate(a, lookup);
}
