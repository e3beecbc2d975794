/**
 * VolumeBinding (pkg/scheduler/framework/plugins/volumebinding/volume_binding.go, binder.go): a pod's
 * PersistentVolumeClaims must exist and not be going away (PreFilter); claims of Immediate binding mode
 * must already be bound (PreFilter); a bound claim's PersistentVolume must accept the node by its node
 * affinity, and an unbound WaitForFirstConsumer claim needs an Available static volume that fits the node,
 * or a class with a provisioner (Filter). Reserve assumes the chosen bindings so later cycles do not pick the
 * same volume; PreBind writes them (the volume's claimRef, or the claim's selected-node annotation) and
 * waits for the PersistentVolume controller to complete the binding.
 *
 * Not ported: CSI migration translation, CSIStorageCapacity checks (no CSIDriver opts in here), the
 * VolumeCapacityPriority score (feature off by default).
 */
import type { PersistentVolume, PersistentVolumeClaim, Pod, Volume } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import type { Labels } from '../../../api/labels.js';
import { compareQuantities } from '../../../api/quantity.js';
import {
  annBindCompleted,
  annBoundByController,
  annSelectedNode,
  claimClass,
  claimStorageRequest,
  findMatchingVolume,
  isVolumeBoundToClaim,
  volumeClass,
} from '../../../api/pv-helpers.js';
import { NodeSelectorMatcher } from '../../framework/corev1.js';
import type { CycleState, StateData } from '../../framework/cycle-state.js';
import {
  ActionType,
  type ClusterEventWithHint,
  type EnqueueExtensions,
  type FilterPlugin,
  type Handle,
  type PreBindPlugin,
  type PreFilterPlugin,
  type PreFilterResult,
  type QueueingHint,
  type ReservePlugin,
  type VolumeLister,
} from '../../framework/interfaces.js';
import { names } from '../../framework/names.js';
import { Code, Status, newStatus } from '../../framework/status.js';
import type { NodeInfo } from '../../framework/types.js';

export const Name = names.VolumeBinding;
/** `ErrReasonBindConflict`. */
export const ErrReasonBindConflict = "node(s) didn't find available persistent volumes to bind";
/** `ErrReasonNodeConflict`. */
export const ErrReasonNodeConflict = 'node(s) had volume node affinity conflict';
/** `ErrReasonNotEnoughSpace` (CSIStorageCapacity; never produced here). */
export const ErrReasonNotEnoughSpace = 'node(s) did not have enough free storage';
/** `ErrReasonPVNotExist`. */
export const ErrReasonPVNotExist = 'node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)';
/** PreFilter's reason when an Immediate claim is not bound yet. */
export const errReasonUnboundImmediatePVC = 'pod has unbound immediate PersistentVolumeClaims';

/** component-helpers/storage/volume annotations. */
/** `volume.NotSupportedProvisioner`. */
export const notSupportedProvisioner = 'kubernetes.io/no-provisioner';

const stateKey = Name;
const defaultBindTimeoutSeconds = 600;
const bindPollIntervalMs = 1000;

/** VolumeBindingArgs (the scoring `shape` is not supported). */
export interface VolumeBindingArgs {
  bindTimeoutSeconds?: number;
}

/** `BindingInfo`: a claim and the volume proposed for it. */
interface BindingInfo {
  pvc: PersistentVolumeClaim;
  pv: PersistentVolume;
}

/** `PodVolumes`: what Filter found for one node. */
interface PodVolumes {
  staticBindings: BindingInfo[];
  dynamicProvisions: PersistentVolumeClaim[];
}

/** `PodVolumeClaims`. */
interface PodVolumeClaims {
  boundClaims: PersistentVolumeClaim[];
  unboundClaimsDelayBinding: PersistentVolumeClaim[];
  unboundClaimsImmediate: PersistentVolumeClaim[];
  /** Volumes of each delay-binding claim's class, listed once per cycle. */
  unboundVolumesDelayBinding: Map<string, PersistentVolume[]>;
}

class VolumeBindingState implements StateData {
  allBound = false;
  readonly podVolumesByNode = new Map<string, PodVolumes>();
  constructor(readonly claims: PodVolumeClaims) {}
  /** Shared by reference, as upstream (the state is only written in PreFilter, Filter and Reserve). */
  clone(): StateData {
    return this;
  }
}

// ---- component-helpers/storage/volume helpers ----

/** `CheckNodeAffinity`: the volume's required node affinity against the node's labels (not its name). */
export function checkNodeAffinity(pv: PersistentVolume, nodeLabels: Labels): boolean {
  const req = pv.spec?.nodeAffinity?.required;
  if (req === undefined) return true;
  return new NodeSelectorMatcher(req).matches(nodeLabels, '');
}

/** `FindMatchingVolume` on the scheduler's path: the node's labels against each volume's node affinity. */
function findMatchingVolumeOnNode(pvc: PersistentVolumeClaim, volumes: readonly PersistentVolume[], nodeLabels: Labels, excluded: ReadonlySet<string>): PersistentVolume | undefined {
  // VolumeAttributesClass is off by default in 1.32: a claim asking for one matches nothing.
  if ((pvc.spec?.volumeAttributesClassName ?? '') !== '') return undefined;
  return findMatchingVolume(pvc, volumes, { nodeAdmits: (pv) => checkNodeAffinity(pv, nodeLabels), excluded, delayBinding: true });
}

/** `GetBindVolumeToClaim`: the volume pre-bound to the claim, and whether anything changed. */
export function bindVolumeToClaim(pv: PersistentVolume, pvc: PersistentVolumeClaim): { pv: PersistentVolume; dirty: boolean } {
  const shouldSetBoundByController = !isVolumeBoundToClaim(pv, pvc);
  const out: PersistentVolume = structuredClone(pv);
  let dirty = false;
  const ref = pv.spec?.claimRef;
  const m = pvc.metadata;
  if (ref === undefined || ref.name !== m?.name || ref.namespace !== m?.namespace || ref.uid !== m?.uid) {
    out.spec = {
      ...out.spec,
      claimRef: {
        kind: 'PersistentVolumeClaim',
        namespace: m?.namespace ?? '',
        name: m?.name ?? '',
        ...(m?.uid !== undefined ? { uid: m.uid } : {}),
        apiVersion: 'v1',
        ...(m?.resourceVersion !== undefined ? { resourceVersion: m.resourceVersion } : {}),
      },
    };
    dirty = true;
  }
  if (shouldSetBoundByController && out.metadata?.annotations?.[annBoundByController] === undefined) {
    out.metadata = { ...out.metadata, annotations: { ...out.metadata?.annotations, [annBoundByController]: 'yes' } };
    dirty = true;
  }
  return { pv: out, dirty };
}

function isPVCFullyBound(pvc: PersistentVolumeClaim): boolean {
  return (pvc.spec?.volumeName ?? '') !== '' && pvc.metadata?.annotations?.[annBindCompleted] !== undefined;
}

/** `ephemeral.VolumeClaimName`. */
function ephemeralClaimName(pod: Pod, vol: Volume): string {
  return `${pod.metadata?.name ?? ''}-${vol.name}`;
}

/** `ephemeral.VolumeIsForPod`: undefined when the claim is the pod's, else the error message. */
function ephemeralVolumeIsForPod(pod: Pod, pvc: PersistentVolumeClaim): string | undefined {
  const owner = (pvc.metadata?.ownerReferences ?? []).find((r) => r.controller === true);
  if (owner === undefined || owner.uid !== pod.metadata?.uid) {
    return `PVC ${pvc.metadata?.namespace ?? ''}/${pvc.metadata?.name ?? ''} was not created for pod ${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''} (pod is not owner)`;
  }
  return undefined;
}

/** The claim name a volume refers to, or undefined for volumes without a claim. */
function claimNameOf(pod: Pod, vol: Volume): { name: string; ephemeral: boolean } | undefined {
  if (vol.persistentVolumeClaim !== undefined) return { name: vol.persistentVolumeClaim.claimName, ephemeral: false };
  if (vol.ephemeral !== undefined) return { name: ephemeralClaimName(pod, vol), ephemeral: true };
  return undefined;
}

function resourceVersionNewer(a: string | undefined, b: string | undefined): boolean {
  const x = Number(a ?? '0');
  const y = Number(b ?? '0');
  return Number.isFinite(x) && Number.isFinite(y) && x > y;
}

/** A failure that becomes an Error status (`framework.AsStatus(err)`). */
class BindingError extends Error {}

export interface VolumeBindingOptions {
  args?: VolumeBindingArgs;
  /** Waits between checks of PreBind's bindings; injectable so tests run in milliseconds. */
  sleep?: (ms: number) => Promise<void>;
}

export class VolumeBinding implements PreFilterPlugin, FilterPlugin, ReservePlugin, PreBindPlugin, EnqueueExtensions {
  readonly name = Name;
  private readonly bindTimeoutMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  /**
   * The assume caches (assume_cache.go): volumes and claims this scheduler has decided on but the informers
   * do not show yet, with the resourceVersion of the informer object they replace. A newer informer object
   * supersedes an assumption.
   */
  private readonly assumedPVs = new Map<string, { obj: PersistentVolume; base: string | undefined }>();
  private readonly assumedPVCs = new Map<string, { obj: PersistentVolumeClaim; base: string | undefined }>();

  constructor(
    private readonly handle: Handle,
    opts: VolumeBindingOptions = {},
  ) {
    this.bindTimeoutMs = (opts.args?.bindTimeoutSeconds ?? defaultBindTimeoutSeconds) * 1000;
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  private lister(): VolumeLister | undefined {
    return this.handle.volumeLister();
  }

  private getPV(name: string): PersistentVolume | undefined {
    const api = this.lister()?.persistentVolume(name);
    const a = this.assumedPVs.get(name);
    if (a === undefined) return api;
    if (api === undefined || api.metadata?.resourceVersion !== a.base) {
      this.assumedPVs.delete(name);
      return api;
    }
    return a.obj;
  }

  private getPVC(namespace: string, name: string): PersistentVolumeClaim | undefined {
    const api = this.lister()?.persistentVolumeClaim(namespace, name);
    const key = `${namespace}/${name}`;
    const a = this.assumedPVCs.get(key);
    if (a === undefined) return api;
    if (api === undefined || api.metadata?.resourceVersion !== a.base) {
      this.assumedPVCs.delete(key);
      return api;
    }
    return a.obj;
  }

  /** `pvCache.ListPVs(class)`. */
  private listPVs(className: string): PersistentVolume[] {
    const out: PersistentVolume[] = [];
    for (const api of this.lister()?.persistentVolumes() ?? []) {
      const pv = this.getPV(api.metadata?.name ?? '') ?? api;
      if (volumeClass(pv) === className) out.push(pv);
    }
    return out;
  }

  /** `podHasPVCs`: whether the pod uses claims, or the error that makes it unschedulable. */
  private podHasPVCs(pod: Pod): { hasPVC: boolean; err?: string } {
    let hasPVC = false;
    const ns = pod.metadata?.namespace ?? '';
    for (const vol of pod.spec?.volumes ?? []) {
      const c = claimNameOf(pod, vol);
      if (c === undefined) continue;
      hasPVC = true;
      const pvc = this.lister()?.persistentVolumeClaim(ns, c.name);
      if (pvc === undefined) {
        if (c.ephemeral) return { hasPVC, err: `waiting for ephemeral volume controller to create the persistentvolumeclaim "${c.name}"` };
        return { hasPVC, err: `persistentvolumeclaim "${c.name}" not found` };
      }
      if (pvc.status?.phase === 'Lost') return { hasPVC, err: `persistentvolumeclaim "${c.name}" bound to non-existent persistentvolume "${pvc.spec?.volumeName ?? ''}"` };
      if (pvc.metadata?.deletionTimestamp !== undefined) return { hasPVC, err: `persistentvolumeclaim "${c.name}" is being deleted` };
      if (c.ephemeral) {
        const e = ephemeralVolumeIsForPod(pod, pvc);
        if (e !== undefined) return { hasPVC, err: e };
      }
    }
    return { hasPVC };
  }

  /** `IsDelayBindingMode`. */
  private isDelayBindingMode(pvc: PersistentVolumeClaim): boolean {
    const className = claimClass(pvc);
    if (className === '') return false;
    const sc: StorageClass | undefined = this.lister()?.storageClass(className);
    if (sc === undefined) return false;
    if (sc.volumeBindingMode === undefined) throw new BindingError(`VolumeBindingMode not set for StorageClass "${className}"`);
    return sc.volumeBindingMode === 'WaitForFirstConsumer';
  }

  /** `GetPodVolumeClaims`: the pod's claims, split into bound, unbound delayed and unbound immediate. */
  private getPodVolumeClaims(pod: Pod): PodVolumeClaims {
    const out: PodVolumeClaims = { boundClaims: [], unboundClaimsDelayBinding: [], unboundClaimsImmediate: [], unboundVolumesDelayBinding: new Map() };
    const ns = pod.metadata?.namespace ?? '';
    for (const vol of pod.spec?.volumes ?? []) {
      const c = claimNameOf(pod, vol);
      if (c === undefined) continue;
      const pvc = this.getPVC(ns, c.name);
      if (pvc === undefined) throw new BindingError(`error getting PVC "${ns}/${c.name}": unable to find PVC "${ns}/${c.name}"`);
      if (c.ephemeral) {
        const e = ephemeralVolumeIsForPod(pod, pvc);
        if (e !== undefined) throw new BindingError(e);
      }
      if (isPVCFullyBound(pvc)) {
        out.boundClaims.push(pvc);
      } else if (this.isDelayBindingMode(pvc) && (pvc.spec?.volumeName ?? '') === '') {
        out.unboundClaimsDelayBinding.push(pvc);
      } else {
        // Pre-bound claims count as immediate: the PV controller binds them.
        out.unboundClaimsImmediate.push(pvc);
      }
    }
    for (const pvc of out.unboundClaimsDelayBinding) {
      const className = claimClass(pvc);
      if (!out.unboundVolumesDelayBinding.has(className)) out.unboundVolumesDelayBinding.set(className, this.listPVs(className));
    }
    return out;
  }

  preFilter(state: CycleState, pod: Pod): { result?: PreFilterResult; status: Status } {
    const volumes = pod.spec?.volumes;
    // Pods without volumes: nothing to look up (the common case, kept free of work).
    if (volumes === undefined || volumes.length === 0) return { status: newStatus(Code.Skip) };
    const { hasPVC, err } = this.podHasPVCs(pod);
    if (err !== undefined) return { status: newStatus(Code.UnschedulableAndUnresolvable, err) };
    if (!hasPVC) return { status: newStatus(Code.Skip) };
    let claims: PodVolumeClaims;
    try {
      claims = this.getPodVolumeClaims(pod);
    } catch (e) {
      if (e instanceof BindingError) return { status: Status.asStatus(e) };
      throw e;
    }
    if (claims.unboundClaimsImmediate.length > 0) {
      return { status: newStatus(Code.UnschedulableAndUnresolvable, errReasonUnboundImmediatePVC) };
    }
    state.write(stateKey, new VolumeBindingState(claims));
    const nodeNames = this.eligibleNodes(claims.boundClaims);
    if (nodeNames !== undefined) return { result: { nodeNames }, status: Status.success() };
    return { status: Status.success() };
  }

  /**
   * `GetEligibleNodes`: the nodes the bound claims' local volumes pin the pod to (by hostname node
   * affinity), intersected; undefined when nothing narrows or a volume is missing.
   */
  private eligibleNodes(boundClaims: readonly PersistentVolumeClaim[]): Set<string> | undefined {
    let eligible: Set<string> | undefined;
    let missing = false;
    for (const pvc of boundClaims) {
      const pv = this.getPV(pvc.spec?.volumeName ?? '');
      if (pv === undefined) {
        missing = true;
        continue;
      }
      const nodeNames = localPersistentVolumeNodeNames(pv);
      if (nodeNames.size === 0) continue;
      eligible = eligible === undefined ? nodeNames : new Set([...eligible].filter((n) => nodeNames.has(n)));
    }
    return missing ? undefined : eligible;
  }

  preFilterExtensions(): undefined {
    return undefined;
  }

  filter(state: CycleState, _pod: Pod, nodeInfo: NodeInfo): Status {
    const s = state.read<VolumeBindingState>(stateKey);
    if (s === undefined) return Status.error(`reading "${stateKey}" from cycle state: not found`);
    let found: { podVolumes: PodVolumes; reasons: string[] };
    try {
      found = this.findPodVolumes(s.claims, nodeInfo);
    } catch (e) {
      if (e instanceof BindingError) return Status.asStatus(e);
      throw e;
    }
    if (found.reasons.length > 0) return newStatus(Code.UnschedulableAndUnresolvable, ...found.reasons);
    s.podVolumesByNode.set(nodeInfo.name, found.podVolumes);
    return Status.success();
  }

  /** `FindPodVolumes`: the bindings and provisions this node would need, or why it cannot have them. */
  private findPodVolumes(claims: PodVolumeClaims, nodeInfo: NodeInfo): { podVolumes: PodVolumes; reasons: string[] } {
    const podVolumes: PodVolumes = { staticBindings: [], dynamicProvisions: [] };
    let boundVolumesSatisfied = true;
    let boundPVsFound = true;
    let unboundVolumesSatisfied = true;
    const labels = nodeInfo.labels;
    const reasons = (): string[] => {
      const r: string[] = [];
      if (!boundVolumesSatisfied) r.push(ErrReasonNodeConflict);
      if (!unboundVolumesSatisfied) r.push(ErrReasonBindConflict);
      if (!boundPVsFound) r.push(ErrReasonPVNotExist);
      return r;
    };
    // checkBoundClaims
    for (const pvc of claims.boundClaims) {
      const pv = this.getPV(pvc.spec?.volumeName ?? '');
      if (pv === undefined) {
        boundPVsFound = false;
        break;
      }
      if (!checkNodeAffinity(pv, labels)) {
        boundVolumesSatisfied = false;
        break;
      }
    }
    if (claims.unboundClaimsDelayBinding.length === 0) return { podVolumes, reasons: reasons() };
    const toFindMatching: PersistentVolumeClaim[] = [];
    const toProvision: PersistentVolumeClaim[] = [];
    for (const pvc of claims.unboundClaimsDelayBinding) {
      const selected = pvc.metadata?.annotations?.[annSelectedNode];
      if (selected !== undefined) {
        if (selected !== nodeInfo.name) {
          unboundVolumesSatisfied = false;
          return { podVolumes, reasons: reasons() };
        }
        toProvision.push(pvc);
      } else {
        toFindMatching.push(pvc);
      }
    }
    if (toFindMatching.length > 0) {
      // findMatchingVolumes: smallest requests first, each volume chosen once.
      const sorted = [...toFindMatching].sort((a, b) => compareQuantities(claimStorageRequest(a), claimStorageRequest(b)));
      const chosen = new Set<string>();
      for (const pvc of sorted) {
        const pv = findMatchingVolumeOnNode(pvc, claims.unboundVolumesDelayBinding.get(claimClass(pvc)) ?? [], labels, chosen);
        if (pv === undefined) {
          toProvision.push(pvc);
          unboundVolumesSatisfied = false;
          continue;
        }
        chosen.add(pv.metadata?.name ?? '');
        podVolumes.staticBindings.push({ pv, pvc });
      }
    }
    if (toProvision.length > 0) {
      // checkVolumeProvisions (without CSIStorageCapacity).
      unboundVolumesSatisfied = true;
      for (const pvc of toProvision) {
        const className = claimClass(pvc);
        if (className === '') throw new BindingError(`no class for claim "${pvc.metadata?.namespace ?? ''}/${pvc.metadata?.name ?? ''}"`);
        const sc = this.lister()?.storageClass(className);
        if (sc === undefined) throw new BindingError(`failed to find storage class "${className}"`);
        if (sc.provisioner === '' || sc.provisioner === notSupportedProvisioner || !matchTopology(sc, labels)) {
          unboundVolumesSatisfied = false;
          podVolumes.dynamicProvisions = [];
          return { podVolumes, reasons: reasons() };
        }
        podVolumes.dynamicProvisions.push(pvc);
      }
    }
    return { podVolumes, reasons: reasons() };
  }

  reserve(state: CycleState, pod: Pod, nodeName: string): Status {
    const s = state.read<VolumeBindingState>(stateKey);
    if (s === undefined) return Status.success();
    const podVolumes = s.podVolumesByNode.get(nodeName);
    if (podVolumes === undefined) {
      s.allBound = true;
      return Status.success();
    }
    s.allBound = this.assumePodVolumes(pod, nodeName, podVolumes);
    return Status.success();
  }

  /** `AssumePodVolumes`: records the chosen bindings in the assume caches; true when nothing is left to bind. */
  private assumePodVolumes(pod: Pod, nodeName: string, podVolumes: PodVolumes): boolean {
    if (this.arePodVolumesBound(pod)) return true;
    const bindings: BindingInfo[] = [];
    for (const b of podVolumes.staticBindings) {
      const { pv, dirty } = bindVolumeToClaim(b.pv, b.pvc);
      if (dirty) this.assumedPVs.set(pv.metadata?.name ?? '', { obj: pv, base: this.lister()?.persistentVolume(pv.metadata?.name ?? '')?.metadata?.resourceVersion });
      bindings.push({ pv, pvc: b.pvc });
    }
    const provisions: PersistentVolumeClaim[] = [];
    for (const claim of podVolumes.dynamicProvisions) {
      const c: PersistentVolumeClaim = structuredClone(claim);
      c.metadata = { ...c.metadata, annotations: { ...c.metadata?.annotations, [annSelectedNode]: nodeName } };
      const ns = c.metadata.namespace ?? '';
      const name = c.metadata.name ?? '';
      this.assumedPVCs.set(`${ns}/${name}`, { obj: c, base: this.lister()?.persistentVolumeClaim(ns, name)?.metadata?.resourceVersion });
      provisions.push(c);
    }
    podVolumes.staticBindings = bindings;
    podVolumes.dynamicProvisions = provisions;
    return false;
  }

  private arePodVolumesBound(pod: Pod): boolean {
    const ns = pod.metadata?.namespace ?? '';
    for (const vol of pod.spec?.volumes ?? []) {
      const c = claimNameOf(pod, vol);
      if (c === undefined) continue;
      const pvc = this.getPVC(ns, c.name);
      if (pvc === undefined || !isPVCFullyBound(pvc)) return false;
    }
    return true;
  }

  /** Idempotent: drops this pod's assumptions for the node. */
  unreserve(state: CycleState, _pod: Pod, nodeName: string): void {
    const podVolumes = state.read<VolumeBindingState>(stateKey)?.podVolumesByNode.get(nodeName);
    if (podVolumes === undefined) return;
    this.revert(podVolumes.staticBindings, podVolumes.dynamicProvisions);
  }

  private revert(bindings: readonly BindingInfo[], claims: readonly PersistentVolumeClaim[]): void {
    for (const b of bindings) this.assumedPVs.delete(b.pv.metadata?.name ?? '');
    for (const c of claims) this.assumedPVCs.delete(`${c.metadata?.namespace ?? ''}/${c.metadata?.name ?? ''}`);
  }

  async preBind(state: CycleState, pod: Pod, nodeName: string): Promise<Status> {
    const s = state.read<VolumeBindingState>(stateKey);
    if (s === undefined || s.allBound) return Status.success();
    const podVolumes = s.podVolumesByNode.get(nodeName);
    if (podVolumes === undefined) return Status.error(`no pod volumes found for node "${nodeName}"`);
    try {
      await this.bindPodVolumes(pod, nodeName, podVolumes);
    } catch (e) {
      if (e instanceof Error) return Status.asStatus(e);
      throw e;
    }
    return Status.success();
  }

  /** `BindPodVolumes`: writes the bindings, then waits for the PV controller to finish them. */
  private async bindPodVolumes(pod: Pod, nodeName: string, podVolumes: PodVolumes): Promise<void> {
    const api = this.handle.apiActions();
    const bindings = podVolumes.staticBindings;
    const provisions = podVolumes.dynamicProvisions;
    let doneBindings = 0;
    let doneProvisions = 0;
    try {
      for (const b of bindings) {
        if (api?.updatePersistentVolume === undefined) throw new BindingError('no API client to update PersistentVolumes');
        b.pv = await api.updatePersistentVolume(b.pv);
        doneBindings++;
      }
      for (let i = 0; i < provisions.length; i++) {
        if (api?.updatePersistentVolumeClaim === undefined) throw new BindingError('no API client to update PersistentVolumeClaims');
        provisions[i] = await api.updatePersistentVolumeClaim(provisions[i] as PersistentVolumeClaim);
        doneProvisions++;
      }
    } finally {
      this.revert(bindings.slice(doneBindings), provisions.slice(doneProvisions));
    }
    // wait.PollUntilContextTimeout(1s, bindTimeout), with time counted in the (injectable) sleeps.
    for (let waited = 0; ; ) {
      await this.sleep(bindPollIntervalMs);
      waited += bindPollIntervalMs;
      let done: boolean;
      try {
        done = this.checkBindings(pod, nodeName, bindings, provisions);
      } catch (e) {
        if (e instanceof BindingError) throw new BindingError(`binding volumes: ${e.message}`);
        throw e;
      }
      if (done) return;
      if (waited >= this.bindTimeoutMs) throw new BindingError('binding volumes: context deadline exceeded');
    }
  }

  /** `checkBindings`: true when every claim is fully bound; throws when binding must be retried. */
  private checkBindings(pod: Pod, nodeName: string, bindings: readonly BindingInfo[], provisions: readonly PersistentVolumeClaim[]): boolean {
    const lister = this.lister();
    if (lister === undefined) throw new BindingError('no volume listers');
    const node = this.handle.snapshot().get(nodeName);
    if (node === undefined) throw new BindingError(`failed to get node "${nodeName}": node "${nodeName}" not found`);
    const ns = pod.metadata?.namespace ?? '';
    const podName = pod.metadata?.name ?? '';
    if (!lister.podExists(ns, podName, pod.metadata?.uid)) throw new BindingError(`pod does not exist any more: pods "${podName}" not found`);
    for (const b of bindings) {
      const pvName = b.pv.metadata?.name ?? '';
      const pv = lister.persistentVolume(pvName);
      if (pv === undefined) throw new BindingError(`failed to check binding: cannot convert to *v1.PersistentVolume: object "${pvName}" not found`);
      const pvcName = b.pvc.metadata?.name ?? '';
      const pvc = lister.persistentVolumeClaim(b.pvc.metadata?.namespace ?? '', pvcName);
      if (pvc === undefined) throw new BindingError(`failed to check binding: cannot convert to *v1.PersistentVolumeClaim: object "${b.pvc.metadata?.namespace ?? ''}/${pvcName}" not found`);
      if (resourceVersionNewer(b.pv.metadata?.resourceVersion, pv.metadata?.resourceVersion)) return false;
      if (!checkNodeAffinity(pv, node.labels)) throw new BindingError(`pv "${pvName}" node affinity doesn't match node "${nodeName}": no matching NodeSelectorTerms`);
      if ((pv.spec?.claimRef?.uid ?? '') === '') throw new BindingError(`ClaimRef got reset for pv "${pvName}"`);
      if (!isPVCFullyBound(pvc)) return false;
    }
    for (const claim of provisions) {
      const name = claim.metadata?.name ?? '';
      const pvc = lister.persistentVolumeClaim(claim.metadata?.namespace ?? '', name);
      if (pvc === undefined) throw new BindingError(`failed to check provisioning pvc: cannot convert to *v1.PersistentVolumeClaim: object "${claim.metadata?.namespace ?? ''}/${name}" not found`);
      if (resourceVersionNewer(claim.metadata?.resourceVersion, pvc.metadata?.resourceVersion)) return false;
      if (pvc.metadata?.annotations === undefined) throw new BindingError(`selectedNode annotation reset for PVC "${name}"`);
      if (pvc.metadata.annotations[annSelectedNode] !== nodeName) throw new BindingError(`provisioning failed for PVC "${name}"`);
      const volumeName = pvc.spec?.volumeName ?? '';
      if (volumeName !== '') {
        const pv = lister.persistentVolume(volumeName);
        if (pv === undefined) return false;
        if (!checkNodeAffinity(pv, node.labels)) throw new BindingError(`pv "${volumeName}" node affinity doesn't match node "${nodeName}": no matching NodeSelectorTerms`);
      }
      if (!isPVCFullyBound(pvc)) return false;
    }
    return true;
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: 'StorageClass', actionType: ActionType.Add | ActionType.UpdateOther, label: 'StorageClassAdd|StorageClassUpdate' },
        queueingHintFn: (_pod, oldObj, newObj) => isSchedulableAfterStorageClassChange(oldObj, newObj),
      },
      {
        event: { resource: 'PersistentVolumeClaim', actionType: ActionType.Add | ActionType.UpdateOther, label: 'PersistentVolumeClaimAdd|PersistentVolumeClaimUpdate' },
        queueingHintFn: (pod, _oldObj, newObj) => isSchedulableAfterPersistentVolumeClaimChange(pod, newObj),
      },
      { event: { resource: 'PersistentVolume', actionType: ActionType.Add | ActionType.UpdateOther, label: 'PersistentVolumeAdd|PersistentVolumeUpdate' } },
      { event: { resource: 'Node', actionType: ActionType.Add | ActionType.UpdateNodeLabel, label: 'NodeAdd|NodeLabelChange' } },
    ];
  }
}

/** `util.GetLocalPersistentVolumeNodeNames`: hostnames the volume's required node affinity names with `In`. */
export function localPersistentVolumeNodeNames(pv: PersistentVolume): Set<string> {
  const result = new Set<string>();
  for (const term of pv.spec?.nodeAffinity?.required?.nodeSelectorTerms ?? []) {
    let nodes: Set<string> | undefined;
    for (const e of term.matchExpressions ?? []) {
      if (e.key !== 'kubernetes.io/hostname' || e.operator !== 'In') continue;
      const vs = new Set(e.values ?? []);
      nodes = nodes === undefined ? vs : new Set([...nodes].filter((n) => vs.has(n)));
    }
    for (const n of nodes ?? []) result.add(n);
  }
  return result;
}

/** `v1helper.MatchTopologySelectorTerms` against the class's allowedTopologies (none: any node). */
function matchTopology(sc: StorageClass, labels: Labels): boolean {
  const terms = sc.allowedTopologies ?? [];
  if (terms.length === 0) return true;
  return terms.some((t) =>
    (t.matchLabelExpressions ?? []).every((r) => {
      const v = labels?.[r.key];
      return v !== undefined && r.values.includes(v);
    }),
  );
}

/** A new class, or a change of allowedTopologies, may help (the binding mode is immutable). */
export function isSchedulableAfterStorageClassChange(oldObj: unknown, newObj: unknown): QueueingHint {
  if (oldObj === undefined || oldObj === null) return 'Queue';
  const o = oldObj as StorageClass;
  const n = newObj as StorageClass | undefined;
  return JSON.stringify(o.allowedTopologies ?? null) !== JSON.stringify(n?.allowedTopologies ?? null) ? 'Queue' : 'QueueSkip';
}

/** A claim of the pod created or changed may help; other claims do not. */
export function isSchedulableAfterPersistentVolumeClaimChange(pod: Pod, newObj: unknown): QueueingHint {
  const pvc = newObj as PersistentVolumeClaim | undefined;
  if (pvc?.metadata === undefined) return 'Queue';
  if (pod.metadata?.namespace !== pvc.metadata.namespace) return 'QueueSkip';
  for (const vol of pod.spec?.volumes ?? []) {
    const c = claimNameOf(pod, vol);
    if (c !== undefined && c.name === pvc.metadata.name) return 'Queue';
  }
  return 'QueueSkip';
}

export function create(args: unknown, h: Handle): VolumeBinding {
  return new VolumeBinding(h, { args: args ?? {} });
}
