/**
 * Services as `ValidateService`/`ValidateServiceUpdate` (v1.32) check them. Node port ranges are not
 * validation's business: the allocator reports them (see `../allocators/`).
 */
import type { Service, ServicePort } from 'kubernetes-types/core/v1.js';
import { type FieldError, fieldErrors, Path } from '../../api/field-errors.js';
import { isDNS1123Label, isDNS1123Subdomain, isValidIP, isValidPortName, isValidPortNum, nameIsDNS1035Label } from './_names.js';
import { goServicePort, goStringSlice } from './_go.js';
import { validateLabels, validateObjectMeta, validateObjectMetaUpdate, validateQualifiedName } from './objectmeta.js';

/** 1.31/1.32 service fields kubernetes-types 1.30 lacks. */
export type ServiceSpecExt = NonNullable<Service['spec']> & { trafficDistribution?: string };

const supportedServiceTypes = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const supportedSessionAffinity = ['ClientIP', 'None'];
const supportedPortProtocols = ['SCTP', 'TCP', 'UDP'];
const kubeletPort = 10250;

function isHeadless(svc: Service): boolean {
  return (svc.spec?.clusterIPs ?? [])[0] === 'None';
}

/** `apiservice.ExternallyAccessible`. */
export function externallyAccessible(svc: Service): boolean {
  const t = svc.spec?.type;
  return t === 'LoadBalancer' || t === 'NodePort' || (t === 'ClusterIP' && (svc.spec?.externalIPs ?? []).length > 0);
}

/** `apiservice.NeedsHealthCheck`: LoadBalancer with externalTrafficPolicy Local. */
export function needsHealthCheck(svc: Service): boolean {
  return svc.spec?.type === 'LoadBalancer' && svc.spec.externalTrafficPolicy === 'Local';
}

function validatePortNumOrName(port: number | string | undefined, path: Path): FieldError[] {
  if (typeof port === 'number') return isValidPortNum(port).map((m) => fieldErrors.invalid(path, port, m));
  if (typeof port === 'string') return isValidPortName(port).map((m) => fieldErrors.invalid(path, port, m));
  return [fieldErrors.internal(path, 'unknown type: 0')];
}

function validateServicePort(sp: ServicePort, requireName: boolean, names: Set<string>, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const name = sp.name ?? '';
  if (requireName && name === '') errs.push(fieldErrors.required(path.child('name'), ''));
  else if (name !== '') {
    errs.push(...isDNS1123Label(name).map((m) => fieldErrors.invalid(path.child('name'), name, m)));
    if (names.has(name)) errs.push(fieldErrors.duplicate(path.child('name'), name));
    else names.add(name);
  }
  for (const m of isValidPortNum(sp.port)) errs.push(fieldErrors.invalid(path.child('port'), sp.port, m));
  const proto = sp.protocol ?? '';
  if (proto === '') errs.push(fieldErrors.required(path.child('protocol'), ''));
  else if (!supportedPortProtocols.includes(proto)) errs.push(fieldErrors.notSupported(path.child('protocol'), proto, supportedPortProtocols));
  errs.push(...validatePortNumOrName(sp.targetPort, path.child('targetPort')));
  if (sp.appProtocol !== undefined) errs.push(...validateQualifiedName(sp.appProtocol, path.child('appProtocol')));
  return errs;
}

/** `ValidateServiceClusterIPsRelatedFields` (single-stack cluster: only the clusterIP/clusterIPs coupling and families). */
export function validateServiceClusterIPsRelatedFields(svc: Service): FieldError[] {
  const spec = svc.spec ?? {};
  if (spec.type === 'ExternalName') return [];
  const errs: FieldError[] = [];
  const sp = Path.root('spec');
  const ipsPath = sp.child('clusterIPs');
  const ips = spec.clusterIPs ?? [];
  if ((spec.clusterIP ?? '') !== '') {
    if (ips.length === 0) errs.push(fieldErrors.required(ipsPath, ''));
    else if (ips[0] !== spec.clusterIP) errs.push(fieldErrors.invalid(ipsPath, goStringSlice(ips), 'first value must match `clusterIP`'));
  } else if (ips.length !== 0) {
    errs.push(fieldErrors.invalid(ipsPath, goStringSlice(ips), 'must be empty when `clusterIP` is not specified'));
  }
  const seen = new Set<string>();
  (spec.ipFamilies ?? []).forEach((f, i) => {
    if (f !== 'IPv4' && f !== 'IPv6') errs.push(fieldErrors.notSupported(sp.child('ipFamilies').index(i), f, ['IPv4', 'IPv6']));
    if (seen.has(f)) errs.push(fieldErrors.duplicate(sp.child('ipFamilies').index(i), f));
    seen.add(f);
  });
  const policy = spec.ipFamilyPolicy;
  if (policy !== undefined && !['PreferDualStack', 'RequireDualStack', 'SingleStack'].includes(policy)) {
    errs.push(fieldErrors.notSupported(sp.child('ipFamilyPolicy'), policy, ['PreferDualStack', 'RequireDualStack', 'SingleStack']));
  }
  ips.forEach((ip, i) => {
    if (i === 0 && ip === 'None') {
      if (ips.length > 1) errs.push(fieldErrors.invalid(ipsPath, goStringSlice(ips), "'None' must be the first and only value"));
      return;
    }
    for (const m of isValidIP(ip)) errs.push(fieldErrors.invalid(ipsPath.index(i), ip, m));
  });
  if (ips.length > 2) errs.push(fieldErrors.invalid(ipsPath, goStringSlice(ips), 'may only hold up to 2 values'));
  return errs;
}

/** `ValidateService`. */
export function validateService(svc: Service): FieldError[] {
  const errs = validateObjectMeta(svc.metadata, { namespaced: true, nameFn: nameIsDNS1035Label });
  const spec = (svc.spec ?? {}) as ServiceSpecExt;
  const sp = Path.root('spec');
  const ports = spec.ports ?? [];
  const headless = isHeadless(svc);
  if (ports.length === 0 && !headless && spec.type !== 'ExternalName') errs.push(fieldErrors.required(sp.child('ports'), ''));
  switch (spec.type) {
    case 'LoadBalancer':
      if (headless) errs.push(fieldErrors.invalid(sp.child('clusterIPs').index(0), 'None', "may not be set to 'None' for LoadBalancer services"));
      ports.forEach((p, ix) => {
        if (p.port === kubeletPort) errs.push(fieldErrors.invalid(sp.child('ports').index(ix), p.port, `may not expose port ${kubeletPort} externally since it is used by kubelet`));
      });
      break;
    case 'NodePort':
      if (headless) errs.push(fieldErrors.invalid(sp.child('clusterIPs').index(0), 'None', "may not be set to 'None' for NodePort services"));
      break;
    case 'ExternalName': {
      if ((spec.clusterIPs ?? []).length > 0) errs.push(fieldErrors.forbidden(sp.child('clusterIPs'), 'may not be set for ExternalName services'));
      if ((spec.ipFamilies ?? []).length > 0) errs.push(fieldErrors.forbidden(sp.child('ipFamilies'), 'may not be set for ExternalName services'));
      if (spec.ipFamilyPolicy !== undefined) errs.push(fieldErrors.forbidden(sp.child('ipFamilyPolicy'), 'may not be set for ExternalName services'));
      const cname = (spec.externalName ?? '').replace(/\.$/, '');
      if (cname.length > 0) errs.push(...isDNS1123Subdomain(cname).map((m) => fieldErrors.invalid(sp.child('externalName'), cname, m)));
      else errs.push(fieldErrors.required(sp.child('externalName'), ''));
      break;
    }
    default:
  }
  const names = new Set<string>();
  ports.forEach((p, i) => errs.push(...validateServicePort(p, ports.length > 1, names, sp.child('ports').index(i))));
  if (spec.selector !== undefined) errs.push(...validateLabels(spec.selector, sp.child('selector')));
  const aff = spec.sessionAffinity ?? '';
  if (aff === '') errs.push(fieldErrors.required(sp.child('sessionAffinity'), ''));
  else if (!supportedSessionAffinity.includes(aff)) errs.push(fieldErrors.notSupported(sp.child('sessionAffinity'), aff, supportedSessionAffinity));
  if (aff === 'ClientIP') {
    const t = spec.sessionAffinityConfig?.clientIP?.timeoutSeconds;
    const cp = sp.child('sessionAffinityConfig').child('clientIP').child('timeoutSeconds');
    if (t === undefined) errs.push(fieldErrors.required(cp, 'must be specified when session affinity config is not nil'));
    else if (t <= 0 || t > 86400) errs.push(fieldErrors.invalid(cp, t, 'must be greater than 0 and less than 86400'));
  } else if (aff === 'None' && spec.sessionAffinityConfig !== undefined) {
    errs.push(fieldErrors.forbidden(sp.child('sessionAffinityConfig'), 'must not be set when session affinity is None'));
  }
  errs.push(...validateServiceClusterIPsRelatedFields(svc));
  (spec.externalIPs ?? []).forEach((ip, i) => {
    for (const m of isValidIP(ip)) errs.push(fieldErrors.invalid(sp.child('externalIPs').index(i), ip, m));
  });
  const type = spec.type ?? '';
  if (type === '') errs.push(fieldErrors.required(sp.child('type'), ''));
  else if (!supportedServiceTypes.includes(type)) errs.push(fieldErrors.notSupported(sp.child('type'), type, supportedServiceTypes));
  if (type === 'ClusterIP') {
    ports.forEach((p, i) => {
      if ((p.nodePort ?? 0) !== 0) errs.push(fieldErrors.forbidden(sp.child('ports').index(i).child('nodePort'), "may not be used when `type` is 'ClusterIP'"));
    });
  }
  const nodePorts = new Set<string>();
  ports.forEach((p, i) => {
    if ((p.nodePort ?? 0) === 0) return;
    const key = `${p.protocol ?? ''}/${p.nodePort}`;
    if (nodePorts.has(key)) errs.push(fieldErrors.duplicate(sp.child('ports').index(i).child('nodePort'), p.nodePort));
    nodePorts.add(key);
  });
  const portKeys = new Set<string>();
  ports.forEach((p, i) => {
    const key = `${p.protocol ?? ''}/${p.port}`;
    if (portKeys.has(key)) errs.push(fieldErrors.duplicate(sp.child('ports').index(i), goServicePort({ protocol: p.protocol ?? '', port: p.port })));
    portKeys.add(key);
  });
  if (spec.allocateLoadBalancerNodePorts !== undefined && type !== 'LoadBalancer') {
    errs.push(fieldErrors.forbidden(sp.child('allocateLoadBalancerNodePorts'), "may only be used when `type` is 'LoadBalancer'"));
  }
  if (type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts === undefined) errs.push(fieldErrors.required(Path.root('allocateLoadBalancerNodePorts'), ''));
  if (spec.loadBalancerClass !== undefined && type !== 'LoadBalancer') {
    errs.push(fieldErrors.forbidden(sp.child('loadBalancerClass'), 'may only be used when `type` is \'LoadBalancer\''));
  }
  const etp = spec.externalTrafficPolicy ?? '';
  if (!externallyAccessible(svc)) {
    if (etp !== '') errs.push(fieldErrors.invalid(sp.child('externalTrafficPolicy'), etp, 'may only be set for externally-accessible services'));
  } else if (etp === '') {
    errs.push(fieldErrors.required(sp.child('externalTrafficPolicy'), ''));
  } else if (etp !== 'Cluster' && etp !== 'Local') {
    errs.push(fieldErrors.notSupported(sp.child('externalTrafficPolicy'), etp, ['Cluster', 'Local']));
  }
  const hc = spec.healthCheckNodePort ?? 0;
  if (!needsHealthCheck(svc)) {
    if (hc !== 0) errs.push(fieldErrors.invalid(sp.child('healthCheckNodePort'), hc, "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"));
  } else if (hc === 0) {
    errs.push(fieldErrors.required(sp.child('healthCheckNodePort'), ''));
  } else {
    for (const m of isValidPortNum(hc)) errs.push(fieldErrors.invalid(sp.child('healthCheckNodePort'), hc, m));
  }
  const itp = spec.internalTrafficPolicy;
  if (itp === undefined) {
    if (type === 'NodePort' || type === 'LoadBalancer' || type === 'ClusterIP') errs.push(fieldErrors.required(sp.child('internalTrafficPolicy'), ''));
  } else if (itp !== 'Cluster' && itp !== 'Local') {
    errs.push(fieldErrors.notSupported(sp.child('internalTrafficPolicy'), itp, ['Cluster', 'Local']));
  }
  if (spec.trafficDistribution !== undefined && spec.trafficDistribution !== 'PreferClose') {
    errs.push(fieldErrors.notSupported(sp.child('trafficDistribution'), spec.trafficDistribution, ['PreferClose']));
  }
  return errs;
}

/** `ValidateServiceUpdate`: the primary/secondary cluster IPs and families may not change once set. */
export function validateServiceUpdate(svc: Service, old: Service): FieldError[] {
  const errs = validateObjectMetaUpdate(svc.metadata, old.metadata);
  const n = svc.spec ?? {};
  const o = old.spec ?? {};
  if (n.type !== 'ExternalName' && o.type !== 'ExternalName') {
    const newIPs = n.clusterIPs ?? [];
    const oldIPs = o.clusterIPs ?? [];
    const ipsPath = Path.root('spec').child('clusterIPs');
    if (oldIPs.length > 0 && newIPs.length === 0) errs.push(fieldErrors.invalid(ipsPath.index(0), goStringSlice(newIPs), 'primary clusterIP can not be unset'));
    if (oldIPs.length > 0 && newIPs.length > 0 && oldIPs[0] !== newIPs[0]) errs.push(fieldErrors.invalid(ipsPath.index(0), goStringSlice(newIPs), 'may not change once set'));
    if (oldIPs.length > 1 && newIPs.length > 1 && oldIPs[1] !== newIPs[1]) errs.push(fieldErrors.invalid(ipsPath.index(1), goStringSlice(newIPs), 'may not change once set'));
    const nf = n.ipFamilies ?? [];
    const of = o.ipFamilies ?? [];
    const famPath = Path.root('spec').child('ipFamilies');
    if (of.length > 0 && nf.length > 0 && of[0] !== nf[0]) errs.push(fieldErrors.invalid(famPath.index(0), nf[0], 'may not change once set'));
    if (of.length > 1 && nf.length > 1 && of[1] !== nf[1]) errs.push(fieldErrors.invalid(famPath.index(1), nf[1], 'may not change once set'));
  }
  if (o.type === 'LoadBalancer' && n.type === 'LoadBalancer' && o.loadBalancerClass !== n.loadBalancerClass) {
    errs.push(fieldErrors.invalid(Path.root('spec').child('loadBalancerClass'), n.loadBalancerClass ?? null, 'may not change once set'));
  }
  errs.push(...validateService(svc));
  return errs;
}
