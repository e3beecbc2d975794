/**
 * Rules shared by the Endpoints and EndpointSlice controllers (pkg/controller/util/endpoint,
 * staging endpointslice util; v1.32): which pods belong, target port resolution, hostnames.
 */
import type { Pod, Service, ServicePort } from 'kubernetes-types/core/v1.js';
import { isPodReady } from './_pods.js';

/** `ShouldPodBeInEndpoints`: not terminal, has an IP, and not terminating unless `includeTerminating`. */
export function shouldPodBeInEndpoints(pod: Pod, includeTerminating: boolean): boolean {
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  if ((pod.status?.podIP ?? '') === '' && (pod.status?.podIPs ?? []).length === 0) return false;
  if (!includeTerminating && pod.metadata?.deletionTimestamp !== undefined) return false;
  return true;
}

/**
 * `podutil.FindPort`: a numeric targetPort as is (the service port when unset); a named one from the
 * containers' (and restartable init containers') ports with the same name and protocol.
 */
export function findPort(pod: Pod, sp: ServicePort): number | undefined {
  const target = sp.targetPort ?? sp.port;
  if (typeof target === 'number') return target;
  if (/^\d+$/.test(target)) return Number(target);
  const protocol = sp.protocol ?? 'TCP';
  const sidecars = (pod.spec?.initContainers ?? []).filter((c) => (c as { restartPolicy?: string }).restartPolicy === 'Always');
  for (const c of [...(pod.spec?.containers ?? []), ...sidecars]) {
    for (const p of c.ports ?? []) if (p.name === target && (p.protocol ?? 'TCP') === protocol) return p.containerPort;
  }
  return undefined;
}

/** `ShouldSetHostname`: the pod's hostname when its subdomain names this Service in the same namespace. */
export function podHostname(pod: Pod, svc: Service): string | undefined {
  const h = pod.spec?.hostname ?? '';
  if (h !== '' && pod.spec?.subdomain === svc.metadata?.name && pod.metadata?.namespace === svc.metadata?.namespace) return h;
  return undefined;
}

export function isHeadless(svc: Service): boolean {
  return svc.spec?.clusterIP === 'None';
}

/** The pod IP of the Service's primary family (IPv4 unless the Service says IPv6). */
export function podIPForService(pod: Pod, svc: Service): string | undefined {
  const wantV6 = (svc.spec?.ipFamilies?.[0] ?? 'IPv4') === 'IPv6';
  const ips = [pod.status?.podIP, ...(pod.status?.podIPs ?? []).map((p) => p.ip)].filter((x): x is string => x !== undefined && x !== '');
  return ips.find((ip) => ip.includes(':') === wantV6);
}

export function selectedPods(svc: Service, pods: readonly Pod[]): Pod[] {
  const sel = svc.spec?.selector ?? {};
  const ns = svc.metadata?.namespace ?? 'default';
  return pods.filter((p) => p.metadata?.namespace === ns && Object.entries(sel).every(([k, v]) => p.metadata?.labels?.[k] === v));
}

export { isPodReady };
