/** Service and pod fixtures for the endpoints tests. */
import type { Pod, Service, ServicePort } from 'kubernetes-types/core/v1.js';

export function service(name: string, ports: ServicePort[], extra: Partial<NonNullable<Service['spec']>> = {}): Service {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default', labels: { app: name } }, spec: { selector: { app: name }, ports, ...extra } };
}

export function servedPod(name: string, app: string, ip: string, opts: { ready?: boolean; node?: string; ports?: { name: string; containerPort: number }[]; hostname?: string; subdomain?: string } = {}): Pod {
  const p: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', labels: { app } },
    spec: {
      containers: [{ name: 'c', image: 'nginx', ports: (opts.ports ?? []).map((x) => ({ ...x, protocol: 'TCP' })) }],
      ...(opts.node !== undefined ? { nodeName: opts.node } : {}),
      ...(opts.hostname !== undefined ? { hostname: opts.hostname } : {}),
      ...(opts.subdomain !== undefined ? { subdomain: opts.subdomain } : {}),
    },
    status: { phase: 'Running', podIP: ip, podIPs: [{ ip }], conditions: [{ type: 'Ready', status: opts.ready === false ? 'False' : 'True' }] },
  };
  return p;
}
