/**
 * What the Service registry does around storage (`pkg/registry/core/service/storage/alloc.go`,
 * `beginCreate`/`beginUpdate`/`afterDelete`): sync `clusterIP`/`clusterIPs`, default `ipFamilyPolicy` and
 * `ipFamilies` (single-stack IPv4 cluster), allocate cluster IPs, node ports (ports with the same `port`
 * number share one node port) and the health check node port, and release them on delete or when an
 * update no longer needs them. Synchronous and in-memory: the API server calls it in its write path
 * (before the strategy validates, as upstream's store does) and `rebuild`s it from stored Services at start.
 *
 * Each allocation returns a transaction: `commit()` after the object is stored (releases what the update
 * freed), `revert()` if storing fails (releases what was allocated). Dry runs allocate nothing.
 */
import type { Service, ServicePort } from 'kubernetes-types/core/v1.js';
import { ApiError, apiErrors } from '../../api/errors.js';
import { type FieldError, fieldErrors, Path } from '../../api/field-errors.js';
import { validateServiceClusterIPsRelatedFields } from '../validation/service.js';
import { prepareServiceForUpdate } from '../validation/defaults.js';
import { goStringSlice } from '../validation/_go.js';
import { isIPv6, parseIPv4 } from '../validation/_names.js';
import { IPAllocator, type IPAllocatorOptions } from './ip-allocator.js';
import { PortAllocator, type PortAllocatorOptions } from './port-allocator.js';

export interface ServiceAllocationOptions {
  nodePorts?: PortAllocatorOptions;
  clusterIPs?: IPAllocatorOptions;
}

export interface AllocationTransaction {
  /** The object was stored: release what the update gave up. Idempotent. */
  commit(): void;
  /** Storing failed: give back what was allocated. Idempotent. */
  revert(): void;
}

const serviceKind = { group: '', kind: 'Service' };

function invalid(svc: Service, errs: FieldError[]): ApiError {
  return apiErrors.invalid(serviceKind, svc.metadata?.name ?? '', errs);
}

function familyOf(ip: string): 'IPv4' | 'IPv6' {
  return isIPv6(ip) ? 'IPv6' : 'IPv4';
}

function needsClusterIP(svc: Service): boolean {
  return svc.spec?.type !== 'ExternalName';
}

function needsNodePort(svc: Service): boolean {
  return svc.spec?.type === 'NodePort' || svc.spec?.type === 'LoadBalancer';
}

function needsHealthCheck(svc: Service): boolean {
  return svc.spec?.type === 'LoadBalancer' && svc.spec.externalTrafficPolicy === 'Local';
}

function shouldAllocateNodePorts(svc: Service): boolean {
  if (svc.spec?.type === 'NodePort') return true;
  if (svc.spec?.type === 'LoadBalancer') return svc.spec.allocateLoadBalancerNodePorts !== false;
  return false;
}

function collectNodePorts(svc: Service | undefined): number[] {
  return (svc?.spec?.ports ?? []).map((p) => p.nodePort ?? 0).filter((n) => n !== 0);
}

function sameStrings(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

/** `normalizeClusterIPs`: keep `clusterIP` and `clusterIPs[0]` in step for old and new clients. */
export function normalizeClusterIPs(svc: Service, old: Service | undefined): void {
  const spec = (svc.spec ??= {});
  if (old === undefined) {
    if ((spec.clusterIP ?? '') !== '' && (spec.clusterIPs ?? []).length === 0) spec.clusterIPs = [spec.clusterIP ?? ''];
    return;
  }
  const o = old.spec ?? {};
  if ((o.clusterIPs ?? []).length > 0 && (spec.clusterIPs ?? []).length === 0 && o.clusterIP === spec.clusterIP && o.clusterIPs !== undefined) {
    spec.clusterIPs = [...o.clusterIPs];
  }
  if ((o.clusterIP ?? '') !== (spec.clusterIP ?? '')) {
    if ((o.clusterIP ?? '') !== '' && (spec.clusterIP ?? '') === '') {
      if (sameStrings(o.clusterIPs, spec.clusterIPs)) delete spec.clusterIPs;
    } else if (sameStrings(o.clusterIPs, spec.clusterIPs)) {
      spec.clusterIPs = [spec.clusterIP ?? ''];
    }
  }
}

/** `patchAllocatedValues`: an update that omits allocated values keeps them (idempotent `kubectl apply`). */
export function patchAllocatedValues(svc: Service, old: Service): void {
  const spec = (svc.spec ??= {});
  const o = old.spec ?? {};
  if (needsClusterIP(old) && needsClusterIP(svc)) {
    if ((spec.clusterIP ?? '') === '' && o.clusterIP !== undefined) spec.clusterIP = o.clusterIP;
    if ((spec.clusterIPs ?? []).length === 0 && (o.clusterIPs ?? []).length > 0 && o.clusterIPs !== undefined) spec.clusterIPs = [...o.clusterIPs];
  }
  if (needsNodePort(old) && needsNodePort(svc)) {
    const newUsed = new Set(collectNodePorts(svc));
    const used = new Set(collectNodePorts(old).filter((p) => newUsed.has(p)));
    const byName = new Map<string, number>();
    for (const p of o.ports ?? []) byName.set(p.name ?? '', p.nodePort ?? 0);
    for (const p of spec.ports ?? []) {
      if ((p.nodePort ?? 0) !== 0) continue;
      const oldVal = byName.get(p.name ?? '') ?? 0;
      if (oldVal !== 0 && !used.has(oldVal)) p.nodePort = oldVal;
    }
  }
  if (needsHealthCheck(old) && needsHealthCheck(svc) && (spec.healthCheckNodePort ?? 0) === 0 && o.healthCheckNodePort !== undefined) {
    spec.healthCheckNodePort = o.healthCheckNodePort;
  }
}

class Txn implements AllocationTransaction {
  private done = false;
  constructor(
    private readonly onCommit: () => void,
    private readonly onRevert: () => void,
  ) {}
  commit(): void {
    if (this.done) return;
    this.done = true;
    this.onCommit();
  }
  revert(): void {
    if (this.done) return;
    this.done = true;
    this.onRevert();
  }
}

/** Allocations made so far in one request, undone on failure. */
class Undo {
  readonly ips: string[] = [];
  readonly ports: number[] = [];
  constructor(private readonly owner: ServiceAllocation) {}
  rollback(): void {
    for (const ip of this.ips) this.owner.clusterIPs.release(ip);
    for (const p of this.ports) this.owner.nodePorts.release(p);
  }
}

export class ServiceAllocation {
  readonly nodePorts: PortAllocator;
  readonly clusterIPs: IPAllocator;

  constructor(opts: ServiceAllocationOptions = {}) {
    this.nodePorts = new PortAllocator(opts.nodePorts);
    this.clusterIPs = new IPAllocator(opts.clusterIPs);
  }

  /**
   * Rebuilds the allocation state from stored Services (the repair controllers' view). Values outside
   * the ranges or claimed twice are skipped; the returned messages say which.
   */
  rebuild(services: readonly Service[]): string[] {
    const problems: string[] = [];
    const who = (s: Service): string => `${s.metadata?.namespace ?? ''}/${s.metadata?.name ?? ''}`;
    for (const s of services) {
      if (needsClusterIP(s)) {
        for (const ip of s.spec?.clusterIPs ?? (s.spec?.clusterIP !== undefined ? [s.spec.clusterIP] : [])) {
          if (ip === '' || ip === 'None' || familyOf(ip) !== 'IPv4') continue;
          try {
            this.clusterIPs.allocate(ip);
          } catch (e) {
            problems.push(`Cluster IP ${ip} of service ${who(s)}: ${(e as Error).message}`);
          }
        }
      }
      const ports = new Set([...collectNodePorts(s), ...(needsHealthCheck(s) && (s.spec?.healthCheckNodePort ?? 0) !== 0 ? [s.spec?.healthCheckNodePort ?? 0] : [])]);
      for (const p of ports) {
        try {
          this.nodePorts.allocate(p);
        } catch (e) {
          problems.push(`Port ${p} of service ${who(s)}: ${(e as Error).message}`);
        }
      }
    }
    return problems;
  }

  /** `initIPFamilyFields` for a single-stack IPv4 cluster. Throws 422 Invalid. */
  private initIPFamilyFields(svc: Service, old: Service | undefined): void {
    const spec = (svc.spec ??= {});
    if (spec.type === 'ExternalName') return;
    if (spec.ipFamilyPolicy === undefined) {
      if (old?.spec?.ipFamilyPolicy !== undefined) spec.ipFamilyPolicy = old.spec.ipFamilyPolicy;
      else if (spec.clusterIP === 'None' && Object.keys(spec.selector ?? {}).length === 0) spec.ipFamilyPolicy = 'RequireDualStack';
      else spec.ipFamilyPolicy = 'SingleStack';
    }
    const pre = validateServiceClusterIPsRelatedFields(svc);
    if (pre.length > 0) throw invalid(svc, pre);
    const errs: FieldError[] = [];
    const policyPath = Path.root('spec').child('ipFamilyPolicy');
    if (old !== undefined) {
      if (spec.ipFamilyPolicy === 'SingleStack') {
        if (sameStrings(old.spec?.clusterIPs, spec.clusterIPs) && (spec.clusterIPs ?? []).length > 1) spec.clusterIPs = spec.clusterIPs?.slice(0, 1) ?? [];
        if (sameStrings(old.spec?.ipFamilies, spec.ipFamilies) && (spec.ipFamilies ?? []).length > 1) spec.ipFamilies = spec.ipFamilies?.slice(0, 1) ?? [];
      } else {
        if ((spec.clusterIPs ?? []).length < (old.spec?.clusterIPs ?? []).length) errs.push(fieldErrors.invalid(policyPath, spec.ipFamilyPolicy, "must be 'SingleStack' to release the secondary cluster IP"));
        if ((spec.ipFamilies ?? []).length < (old.spec?.ipFamilies ?? []).length) errs.push(fieldErrors.invalid(policyPath, spec.ipFamilyPolicy, "must be 'SingleStack' to release the secondary IP family"));
      }
    }
    if (spec.ipFamilyPolicy === 'SingleStack') {
      if ((spec.clusterIPs ?? []).length === 2) errs.push(fieldErrors.invalid(policyPath, spec.ipFamilyPolicy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"));
      if ((spec.ipFamilies ?? []).length === 2) errs.push(fieldErrors.invalid(policyPath, spec.ipFamilyPolicy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"));
    }
    const families = [...(spec.ipFamilies ?? [])];
    (spec.clusterIPs ?? []).every((ip, i) => {
      if (ip === 'None') return false;
      if (i >= families.length) {
        const fam = familyOf(ip);
        if (fam !== 'IPv4') errs.push(fieldErrors.invalid(Path.root('spec').child('clusterIPs').index(i), goStringSlice(spec.clusterIPs), `${fam} is not configured on this cluster`));
        else families.push(fam);
      }
      return true;
    });
    if (errs.length > 0) throw invalid(svc, errs);
    if (families.length > 0) spec.ipFamilies = families;
    if (spec.clusterIP === 'None' && Object.keys(spec.selector ?? {}).length === 0) {
      if (families.length === 0) families.push('IPv4');
      if (families.length < 2 && spec.ipFamilyPolicy !== 'SingleStack') families.push(families[0] === 'IPv4' ? 'IPv6' : 'IPv4');
      spec.ipFamilies = families;
      return;
    }
    if (spec.ipFamilyPolicy === 'RequireDualStack') errs.push(fieldErrors.invalid(policyPath, spec.ipFamilyPolicy, 'this cluster is not configured for dual-stack services'));
    families.forEach((f, i) => {
      if (f !== 'IPv4') errs.push(fieldErrors.invalid(Path.root('spec').child('ipFamilies').index(i), f, 'not configured on this cluster'));
    });
    if (errs.length > 0) throw invalid(svc, errs);
    spec.ipFamilies = families.length === 0 ? ['IPv4'] : families;
  }

  private allocIP(svc: Service, ip: string, undo: Undo): string {
    if (ip === '') {
      try {
        const got = this.clusterIPs.allocateNext();
        undo.ips.push(got);
        return got;
      } catch (e) {
        throw apiErrors.internal(`failed to allocate a serviceIP: ${(e as Error).message}`);
      }
    }
    if (parseIPv4(ip) === undefined) throw apiErrors.internal(`failed to parse service IP "${ip}"`);
    try {
      this.clusterIPs.allocate(ip);
    } catch (e) {
      throw invalid(svc, [fieldErrors.invalid(Path.root('spec').child('clusterIPs'), goStringSlice(svc.spec?.clusterIPs), `failed to allocate IP ${ip}: ${(e as Error).message}`)]);
    }
    undo.ips.push(ip);
    return ip;
  }

  private allocClusterIPs(svc: Service, undo: Undo): void {
    const spec = svc.spec ?? {};
    if (spec.type === 'ExternalName') return;
    if ((spec.clusterIPs ?? [])[0] === 'None') return;
    const ips = [...(spec.clusterIPs ?? [])];
    (spec.ipFamilies ?? []).forEach((_fam, i) => {
      ips[i] = this.allocIP(svc, ips[i] ?? '', undo);
    });
    spec.clusterIPs = ips;
    if (ips[0] !== undefined) spec.clusterIP = ips[0];
  }

  private allocatePort(svc: Service, i: number, port: number, undo: Undo): void {
    try {
      this.nodePorts.allocate(port);
    } catch (e) {
      throw invalid(svc, [fieldErrors.invalid(Path.root('spec').child('ports').index(i).child('nodePort'), port, (e as Error).message)]);
    }
    undo.ports.push(port);
  }

  private allocateNextPort(undo: Undo): number {
    try {
      const p = this.nodePorts.allocateNext();
      undo.ports.push(p);
      return p;
    } catch (e) {
      throw apiErrors.internal(`failed to allocate a nodePort: ${(e as Error).message}`);
    }
  }

  /** `initNodePorts`: ports with the same `port` number (e.g. TCP and UDP 53) share one node port. */
  private initNodePorts(svc: Service, undo: Undo): void {
    const ports: ServicePort[] = svc.spec?.ports ?? [];
    const byPort = new Map<number, number>();
    ports.forEach((sp, i) => {
      if ((sp.nodePort ?? 0) === 0 && !shouldAllocateNodePorts(svc)) return;
      const allocated = byPort.get(sp.port) ?? 0;
      if (allocated === 0) {
        const requested = ports.find((p) => p.port === sp.port && (p.nodePort ?? 0) !== 0)?.nodePort ?? 0;
        if (requested !== 0) {
          this.allocatePort(svc, i, requested, undo);
          sp.nodePort = requested;
          byPort.set(sp.port, requested);
        } else {
          const np = this.allocateNextPort(undo);
          sp.nodePort = np;
          byPort.set(sp.port, np);
        }
      } else if ((sp.nodePort ?? 0) !== allocated) {
        if ((sp.nodePort ?? 0) === 0) sp.nodePort = allocated;
        else this.allocatePort(svc, i, sp.nodePort ?? 0, undo);
      }
    });
  }

  private allocHealthCheckNodePort(svc: Service, undo: Undo): void {
    const spec = svc.spec ?? {};
    const requested = spec.healthCheckNodePort ?? 0;
    if (requested !== 0) {
      try {
        this.nodePorts.allocate(requested);
      } catch (e) {
        throw apiErrors.internal(`failed to allocate requested HealthCheck NodePort ${requested}: ${(e as Error).message}`);
      }
      undo.ports.push(requested);
      return;
    }
    try {
      const p = this.nodePorts.allocateNext();
      undo.ports.push(p);
      spec.healthCheckNodePort = p;
    } catch (e) {
      throw apiErrors.internal(`failed to allocate a HealthCheck NodePort 0: ${(e as Error).message}`);
    }
  }

  /** `beginCreate`: mutates `svc` (cluster IPs, families, node ports); throws 422 or 500 `ApiError`s. */
  allocateCreate(svc: Service, opts: { dryRun?: boolean } = {}): AllocationTransaction {
    normalizeClusterIPs(svc, undefined);
    this.initIPFamilyFields(svc, undefined);
    const undo = new Undo(this);
    try {
      this.allocClusterIPs(svc, undo);
      if (needsNodePort(svc)) this.initNodePorts(svc, undo);
      if (needsHealthCheck(svc)) this.allocHealthCheckNodePort(svc, undo);
    } catch (e) {
      undo.rollback();
      throw e;
    }
    if (opts.dryRun === true) {
      undo.rollback();
      return new Txn(() => undefined, () => undefined);
    }
    return new Txn(() => undefined, () => undo.rollback());
  }

  /**
   * `beginUpdate`: patches omitted allocated values from `old`, allocates/releases as the type needs, then
   * applies the strategy's `dropTypeDependentFields` (e.g. NodePort -> ClusterIP drops the node ports).
   */
  allocateUpdate(svc: Service, old: Service, opts: { dryRun?: boolean } = {}): AllocationTransaction {
    patchAllocatedValues(svc, old);
    normalizeClusterIPs(svc, old);
    this.initIPFamilyFields(svc, old);
    const undo = new Undo(this);
    const toRelease = { ips: [] as string[], ports: [] as number[] };
    try {
      const o = old.spec ?? {};
      const spec = (svc.spec ??= {});
      if (o.type === 'ExternalName' && spec.type !== 'ExternalName') {
        this.allocClusterIPs(svc, undo);
      } else if ((o.clusterIPs ?? [])[0] !== 'None' && o.type !== 'ExternalName' && spec.type === 'ExternalName') {
        toRelease.ips.push(...(o.clusterIPs ?? []));
      }
      if (needsNodePort(old) && (spec.type === 'ExternalName' || spec.type === 'ClusterIP')) toRelease.ports.push(...collectNodePorts(old));
      if (needsNodePort(svc)) this.updateNodePorts(svc, old, undo, toRelease.ports);
      const needed = needsHealthCheck(old);
      const needs = needsHealthCheck(svc);
      if (!needed && needs) this.allocHealthCheckNodePort(svc, undo);
      else if (needed && !needs && (o.healthCheckNodePort ?? 0) !== 0) toRelease.ports.push(o.healthCheckNodePort ?? 0);
    } catch (e) {
      undo.rollback();
      throw e;
    }
    // The strategy's PrepareForUpdate: a type change clears the fields the old type needed.
    prepareServiceForUpdate(svc, old);
    if (opts.dryRun === true) {
      undo.rollback();
      return new Txn(() => undefined, () => undefined);
    }
    return new Txn(
      () => {
        for (const ip of toRelease.ips) this.clusterIPs.release(ip);
        for (const p of toRelease.ports) this.nodePorts.release(p);
      },
      () => undo.rollback(),
    );
  }

  private updateNodePorts(svc: Service, old: Service, undo: Undo, release: number[]): void {
    const oldNumbers = collectNodePorts(old);
    const seen = new Set<string>();
    const allocatedNow = new Set<number>();
    (svc.spec?.ports ?? []).forEach((sp, i) => {
      if ((sp.nodePort ?? 0) === 0 && !shouldAllocateNodePorts(svc)) return;
      if ((sp.nodePort ?? 0) !== 0) {
        const np = sp.nodePort ?? 0;
        if (!oldNumbers.includes(np) && !allocatedNow.has(np)) {
          this.allocatePort(svc, i, np, undo);
          allocatedNow.add(np);
        }
      } else {
        sp.nodePort = this.allocateNextPort(undo);
      }
      const key = `${sp.protocol ?? ''}/${sp.nodePort ?? 0}`;
      if (seen.has(key)) throw apiErrors.internal(`duplicate nodePort: {${sp.protocol ?? ''} ${sp.nodePort ?? 0}}`);
      seen.add(key);
    });
    const newNumbers = new Set(collectNodePorts(svc));
    for (const p of oldNumbers) if (!newNumbers.has(p)) release.push(p);
  }

  /** `releaseAllocatedResources`: after a Service is deleted. */
  release(svc: Service): void {
    if (needsClusterIP(svc) && (svc.spec?.clusterIPs ?? [])[0] !== 'None') {
      for (const ip of svc.spec?.clusterIPs ?? []) this.clusterIPs.release(ip);
    }
    for (const p of collectNodePorts(svc)) this.nodePorts.release(p);
    if (needsHealthCheck(svc) && (svc.spec?.healthCheckNodePort ?? 0) > 0) this.nodePorts.release(svc.spec?.healthCheckNodePort ?? 0);
  }
}
