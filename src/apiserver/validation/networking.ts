/**
 * networking.k8s.io/v1 Ingresses, IngressClasses and NetworkPolicies as `pkg/apis/networking/validation`
 * (v1.32) checks them, with the options the registry strategies derive from the stored object (invalid
 * TLS secret names, rules under wildcard hosts and selector values a stored object already has may stay).
 *
 * CIDRs are parsed as 1.32 does (`ParseCIDRSloppy`: IPv4 octets may have leading zeros); the stricter
 * checks of KEP-4858 came in 1.33.
 */
import type {
  HTTPIngressPath,
  HTTPIngressRuleValue,
  IPBlock,
  Ingress,
  IngressBackend,
  IngressClass,
  IngressClassParametersReference,
  IngressLoadBalancerStatus,
  IngressSpec,
  NetworkPolicy,
  NetworkPolicyPeer,
  NetworkPolicyPort,
  NetworkPolicySpec,
} from 'kubernetes-types/networking/v1.js';
import { type FieldError, fieldErrors, GoValue, goQuote, Path } from '../../api/field-errors.js';
import {
  ipNetContains,
  isDNS1123Subdomain,
  isValidIP,
  isValidPortName,
  isValidPortNum,
  isWildcardDNS1123Subdomain,
  nameIsDNS1035Label,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  parseCIDRSloppy,
  parseIPSloppy,
  regexError,
  validatePathSegmentName,
} from './_names.js';
import { type LabelSelectorValidationOptions, validateImmutableField, validateLabelSelector, validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';

const annotationIngressClass = 'kubernetes.io/ingress.class';
const maxLenIngressClassController = 250;
const supportedPathTypes = ['Exact', 'ImplementationSpecific', 'Prefix'];
const invalidPathSequences = ['//', '/./', '/../', '%2f', '%2F'];
const invalidPathSuffixes = ['/..', '/.'];
const supportedIngressClassParametersReferenceScopes = ['Cluster', 'Namespace'];
const supportedProtocols = ['TCP', 'UDP', 'SCTP'];
const supportedPolicyTypes = ['Ingress', 'Egress'];

// ---- NetworkPolicy ----

/** `ValidateNetworkPolicyPort`: protocol, and a port or port range (`endPort` only with a numeric port). */
export function validateNetworkPolicyPort(port: NetworkPolicyPort, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (port.protocol != null && !supportedProtocols.includes(port.protocol)) errs.push(fieldErrors.notSupported(path.child('protocol'), port.protocol, supportedProtocols));
  const p = port.port;
  const end = port.endPort;
  if (typeof p === 'number') {
    for (const m of isValidPortNum(p)) errs.push(fieldErrors.invalid(path.child('port'), p, m));
    if (end != null) {
      if (end < p) errs.push(fieldErrors.invalid(path.child('endPort'), p, 'must be greater than or equal to `port`'));
      for (const m of isValidPortNum(end)) errs.push(fieldErrors.invalid(path.child('endPort'), end, m));
    }
  } else if (typeof p === 'string') {
    if (end != null) errs.push(fieldErrors.invalid(path.child('endPort'), end, 'may not be specified when `port` is non-numeric'));
    for (const m of isValidPortName(p)) errs.push(fieldErrors.invalid(path.child('port'), p, m));
  } else if (end != null) {
    errs.push(fieldErrors.invalid(path.child('endPort'), end, 'may not be specified when `port` is not specified'));
  }
  return errs;
}

/** `ValidateNetworkPolicyPeer`: exactly one kind of peer, or pod and namespace selectors together. */
export function validateNetworkPolicyPeer(peer: NetworkPolicyPeer, opts: LabelSelectorValidationOptions, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  let numPeers = 0;
  if (peer.podSelector != null) {
    numPeers++;
    errs.push(...validateLabelSelector(peer.podSelector, path.child('podSelector'), opts));
  }
  if (peer.namespaceSelector != null) {
    numPeers++;
    errs.push(...validateLabelSelector(peer.namespaceSelector, path.child('namespaceSelector'), opts));
  }
  if (peer.ipBlock != null) {
    numPeers++;
    errs.push(...validateIPBlock(peer.ipBlock, path.child('ipBlock')));
  }
  if (numPeers === 0) errs.push(fieldErrors.required(path, 'must specify a peer'));
  else if (numPeers > 1 && peer.ipBlock != null) errs.push(fieldErrors.forbidden(path, 'may not specify both ipBlock and another peer'));
  return errs;
}

/** `ValidateIPBlock`: a CIDR, and exceptions strictly inside it (the first unparsable one ends the check). */
export function validateIPBlock(ipb: IPBlock, path: Path): FieldError[] {
  const cidr = ipb.cidr ?? '';
  if (cidr === '') return [fieldErrors.required(path.child('cidr'), '')];
  const net = parseCIDRSloppy(cidr);
  if (net === undefined) return [fieldErrors.invalid(path.child('cidr'), cidr, 'not a valid CIDR')];
  const errs: FieldError[] = [];
  for (const [i, text] of (ipb.except ?? []).entries()) {
    const exceptPath = path.child('except').index(i);
    const except = parseCIDRSloppy(text);
    if (except === undefined) {
      errs.push(fieldErrors.invalid(exceptPath, text, 'not a valid CIDR'));
      return errs;
    }
    if (!ipNetContains(net, except.ip) || net.prefix >= except.prefix) errs.push(fieldErrors.invalid(exceptPath, text, 'must be a strict subset of `cidr`'));
  }
  return errs;
}

/** `ValidateNetworkPolicySpec`. */
export function validateNetworkPolicySpec(spec: NetworkPolicySpec | undefined, opts: LabelSelectorValidationOptions, path: Path): FieldError[] {
  const errs = validateLabelSelector(spec?.podSelector ?? {}, path.child('podSelector'), opts);
  (spec?.ingress ?? []).forEach((rule, i) => {
    const rp = path.child('ingress').index(i);
    (rule.ports ?? []).forEach((port, j) => errs.push(...validateNetworkPolicyPort(port, rp.child('ports').index(j))));
    (rule.from ?? []).forEach((peer, j) => errs.push(...validateNetworkPolicyPeer(peer, opts, rp.child('from').index(j))));
  });
  (spec?.egress ?? []).forEach((rule, i) => {
    const rp = path.child('egress').index(i);
    (rule.ports ?? []).forEach((port, j) => errs.push(...validateNetworkPolicyPort(port, rp.child('ports').index(j))));
    (rule.to ?? []).forEach((peer, j) => errs.push(...validateNetworkPolicyPeer(peer, opts, rp.child('to').index(j))));
  });
  const types = spec?.policyTypes ?? [];
  if (types.length > supportedPolicyTypes.length) {
    errs.push(fieldErrors.invalid(path.child('policyTypes'), new GoValue(`[]networking.PolicyType{${types.map(goQuote).join(', ')}}`), 'may not specify more than two policyTypes'));
    return errs;
  }
  types.forEach((t, i) => {
    if (!supportedPolicyTypes.includes(t)) errs.push(fieldErrors.notSupported(path.child('policyTypes').index(i), t, supportedPolicyTypes));
  });
  return errs;
}

/** `ValidationOptionsForNetworking`: a stored pod selector with invalid values may keep them. */
function validationOptionsForNetworking(old: NetworkPolicy | undefined): LabelSelectorValidationOptions {
  if (old === undefined) return { allowInvalidLabelValueInSelector: false };
  return { allowInvalidLabelValueInSelector: validateLabelSelector(old.spec?.podSelector ?? {}, Path.root('')).length > 0 };
}

/** `ValidateNetworkPolicy`. */
function validateNetworkPolicyWith(np: NetworkPolicy, opts: LabelSelectorValidationOptions): FieldError[] {
  const errs = validateObjectMeta(np.metadata, { namespaced: true, nameFn: nameIsDNSSubdomain });
  errs.push(...validateNetworkPolicySpec(np.spec, opts, Path.root('spec')));
  return errs;
}

/** The strategy's `Validate`: `ValidateNetworkPolicy` with options for a new object. */
export function validateNetworkPolicy(np: NetworkPolicy): FieldError[] {
  return validateNetworkPolicyWith(np, validationOptionsForNetworking(undefined));
}

/**
 * The strategy's `ValidateUpdate`: `ValidateNetworkPolicy` and then `ValidateNetworkPolicyUpdate`, which
 * validates the spec a second time (upstream reports such errors twice; the message lists them once).
 */
export function validateNetworkPolicyUpdate(np: NetworkPolicy, old: NetworkPolicy): FieldError[] {
  const opts = validationOptionsForNetworking(old);
  const errs = validateNetworkPolicyWith(np, opts);
  errs.push(...validateObjectMetaUpdate(np.metadata, old.metadata));
  errs.push(...validateNetworkPolicySpec(np.spec, opts, Path.root('spec')));
  return errs;
}

// ---- Ingress ----

/** `IngressValidationOptions`: what a stored object already has that newer rules refuse. */
interface IngressValidationOptions {
  allowInvalidSecretName: boolean;
  allowInvalidWildcardHostRule: boolean;
}

const strictIngressOptions: IngressValidationOptions = { allowInvalidSecretName: false, allowInvalidWildcardHostRule: false };

/** `validateIngress`: metadata and spec. */
function validateIngress(ing: Ingress, opts: IngressValidationOptions): FieldError[] {
  const errs = validateObjectMeta(ing.metadata, { namespaced: true, nameFn: nameIsDNSSubdomain });
  errs.push(...validateIngressSpec(ing.spec, Path.root('spec'), opts));
  return errs;
}

/** `ValidateIngressCreate`: also, the deprecated class annotation must agree with `ingressClassName`. */
export function validateIngressCreate(ing: Ingress): FieldError[] {
  const errs = validateIngress(ing, strictIngressOptions);
  const annotations = ing.metadata?.annotations ?? {};
  const className = ing.spec?.ingressClassName;
  if (Object.prototype.hasOwnProperty.call(annotations, annotationIngressClass) && className != null && annotations[annotationIngressClass] !== className) {
    errs.push(fieldErrors.invalid(Path.root('annotations').child(annotationIngressClass), annotations[annotationIngressClass], 'must match `ingressClassName` when both are specified'));
  }
  return errs;
}

/** `ValidateIngressUpdate`. */
export function validateIngressUpdate(ing: Ingress, old: Ingress): FieldError[] {
  const errs = validateObjectMetaUpdate(ing.metadata, old.metadata);
  errs.push(...validateIngress(ing, { allowInvalidSecretName: allowInvalidSecretName(old), allowInvalidWildcardHostRule: allowInvalidWildcardHostRule(old) }));
  return errs;
}

/** `ValidateIngressStatusUpdate`. */
export function validateIngressStatusUpdate(ing: Ingress, old: Ingress): FieldError[] {
  const errs = validateObjectMetaUpdate(ing.metadata, old.metadata);
  errs.push(...validateIngressLoadBalancerStatus(ing.status?.loadBalancer, Path.root('status').child('loadBalancer')));
  return errs;
}

/** `ValidateIngressLoadBalancerStatus`: IPs are IPs; hostnames are DNS names and not IPs. */
function validateIngressLoadBalancerStatus(status: IngressLoadBalancerStatus | undefined, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  (status?.ingress ?? []).forEach((lb, i) => {
    const p = path.child('ingress').index(i);
    const ip = lb.ip ?? '';
    if (ip !== '') for (const m of isValidIP(ip)) errs.push(fieldErrors.invalid(p.child('ip'), ip, m));
    const hostname = lb.hostname ?? '';
    if (hostname !== '') {
      for (const m of isDNS1123Subdomain(hostname)) errs.push(fieldErrors.invalid(p.child('hostname'), hostname, m));
      if (parseIPSloppy(hostname) !== undefined) errs.push(fieldErrors.invalid(p.child('hostname'), hostname, 'must be a DNS name, not an IP address'));
    }
  });
  return errs;
}

/** `ValidateIngressSpec`. */
function validateIngressSpec(spec: IngressSpec | undefined, path: Path, opts: IngressValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  const rules = spec?.rules;
  if ((rules ?? []).length === 0 && spec?.defaultBackend == null) {
    const shown = new GoValue(rules == null ? '[]networking.IngressRule(nil)' : '[]networking.IngressRule{}');
    errs.push(fieldErrors.invalid(path, shown, 'either `defaultBackend` or `rules` must be specified'));
  }
  if (spec?.defaultBackend != null) errs.push(...validateIngressBackend(spec.defaultBackend, path.child('defaultBackend')));
  if (rules != null && rules.length > 0) errs.push(...validateIngressRules(rules, path.child('rules'), opts));
  if (spec?.tls != null && spec.tls.length > 0) errs.push(...validateIngressTLS(spec, path.child('tls'), opts));
  const className = spec?.ingressClassName;
  if (className != null) for (const m of nameIsDNSSubdomain(className, false)) errs.push(fieldErrors.invalid(path.child('ingressClassName'), className, m));
  return errs;
}

/** A host (rule or TLS) as upstream checks it: wildcard subdomains when it has a `*`, else subdomains. */
function hostErrors(host: string): string[] {
  return host.includes('*') ? isWildcardDNS1123Subdomain(host) : isDNS1123Subdomain(host);
}

/** `validateIngressTLS`: hosts, and secret names unless the stored object already had an invalid one. */
function validateIngressTLS(spec: IngressSpec, path: Path, opts: IngressValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  (spec.tls ?? []).forEach((tls, t) => {
    (tls.hosts ?? []).forEach((host, i) => {
      for (const m of hostErrors(host)) errs.push(fieldErrors.invalid(path.index(t).child('hosts').index(i), host, m));
    });
    if (!opts.allowInvalidSecretName) {
      const secret = tls.secretName ?? '';
      for (const m of validateTLSSecretName(secret)) errs.push(fieldErrors.invalid(path.index(t).child('secretName'), secret, m));
    }
  });
  return errs;
}

/** `validateIngressRules`: hosts are DNS names (not IPs); rules under wildcard hosts may be ratcheted. */
function validateIngressRules(rules: NonNullable<IngressSpec['rules']>, path: Path, opts: IngressValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  rules.forEach((rule, i) => {
    const host = rule.host ?? '';
    let wildcardHost = false;
    if (host !== '') {
      if (parseIPSloppy(host) !== undefined) errs.push(fieldErrors.invalid(path.index(i).child('host'), host, 'must be a DNS name, not an IP address'));
      wildcardHost = host.includes('*');
      for (const m of hostErrors(host)) errs.push(fieldErrors.invalid(path.index(i).child('host'), host, m));
    }
    if (!wildcardHost || !opts.allowInvalidWildcardHostRule) errs.push(...validateIngressRuleValue(rule.http, path.index(i)));
  });
  return errs;
}

/** `validateIngressRuleValue` / `validateHTTPIngressRuleValue`: at least one path, each valid. */
function validateIngressRuleValue(http: HTTPIngressRuleValue | undefined, path: Path): FieldError[] {
  if (http == null) return [];
  const hp = path.child('http');
  const errs: FieldError[] = [];
  const paths = http.paths ?? [];
  if (paths.length === 0) errs.push(fieldErrors.required(hp.child('paths'), ''));
  paths.forEach((p, i) => errs.push(...validateHTTPIngressPath(p, hp.child('paths').index(i))));
  return errs;
}

/** `validateHTTPIngressPath`: a path type, a path it allows, and a backend. */
function validateHTTPIngressPath(p: HTTPIngressPath, path: Path): FieldError[] {
  if (p.pathType == null) return [fieldErrors.required(path.child('pathType'), 'pathType must be specified')];
  const errs: FieldError[] = [];
  const value = p.path ?? '';
  const pp = path.child('path');
  switch (p.pathType) {
    case 'Exact':
    case 'Prefix':
      if (!value.startsWith('/')) errs.push(fieldErrors.invalid(pp, value, 'must be an absolute path'));
      if (value.length > 0) {
        for (const seq of invalidPathSequences) if (value.includes(seq)) errs.push(fieldErrors.invalid(pp, value, `must not contain '${seq}'`));
        for (const suffix of invalidPathSuffixes) if (value.endsWith(suffix)) errs.push(fieldErrors.invalid(pp, value, `cannot end with '${suffix}'`));
      }
      break;
    case 'ImplementationSpecific':
      if (value.length > 0 && !value.startsWith('/')) errs.push(fieldErrors.invalid(pp, value, 'must be an absolute path'));
      break;
    default:
      errs.push(fieldErrors.notSupported(path.child('pathType'), p.pathType, supportedPathTypes));
  }
  errs.push(...validateIngressBackend(p.backend, path.child('backend')));
  return errs;
}

/** `validateIngressBackend`: a resource or a service (name and one of port name or number). */
function validateIngressBackend(backend: IngressBackend | undefined, path: Path): FieldError[] {
  const resource = backend?.resource;
  const service = backend?.service;
  if (resource != null && service != null) return [fieldErrors.invalid(path, '', 'cannot set both resource and service backends')];
  if (resource != null) return validateIngressTypedLocalObjectReference(resource, path.child('resource'));
  if (service == null) return [fieldErrors.invalid(path, '', 'resource or service backend is required')];
  const errs: FieldError[] = [];
  const name = service.name ?? '';
  if (name === '') errs.push(fieldErrors.required(path.child('service', 'name'), ''));
  else for (const m of nameIsDNS1035Label(name, false)) errs.push(fieldErrors.invalid(path.child('service', 'name'), name, m));
  const portName = service.port?.name ?? '';
  const portNumber = service.port?.number ?? 0;
  if (portName !== '' && portNumber !== 0) {
    errs.push(fieldErrors.invalid(path, '', 'cannot set both port name & port number'));
  } else if (portName !== '') {
    for (const m of isValidPortName(portName)) errs.push(fieldErrors.invalid(path.child('service', 'port', 'name'), portName, m));
  } else if (portNumber !== 0) {
    for (const m of isValidPortNum(portNumber)) errs.push(fieldErrors.invalid(path.child('service', 'port', 'number'), portNumber, m));
  } else {
    errs.push(fieldErrors.required(path, 'port name or number is required'));
  }
  return errs;
}

/** `validateIngressTypedLocalObjectReference`: API group a subdomain; kind and name required path segments. */
function validateIngressTypedLocalObjectReference(ref: { apiGroup?: string; kind?: string; name?: string }, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (ref.apiGroup != null) for (const m of isDNS1123Subdomain(ref.apiGroup)) errs.push(fieldErrors.invalid(path.child('apiGroup'), ref.apiGroup, m));
  for (const f of ['kind', 'name'] as const) {
    const v = ref[f] ?? '';
    if (v === '') errs.push(fieldErrors.required(path.child(f), `${f} is required`));
    else for (const m of validatePathSegmentName(v, false)) errs.push(fieldErrors.invalid(path.child(f), v, m));
  }
  return errs;
}

/** `validateTLSSecretName`: empty is allowed; otherwise a Secret name. */
function validateTLSSecretName(name: string): string[] {
  return name === '' ? [] : nameIsDNSSubdomain(name, false);
}

/** `allowInvalidSecretName`: the stored Ingress already has an invalid TLS secret name. */
function allowInvalidSecretName(old: Ingress): boolean {
  return (old.spec?.tls ?? []).some((t) => validateTLSSecretName(t.secretName ?? '').length > 0);
}

/** `allowInvalidWildcardHostRule`: the stored Ingress already has an invalid rule under a wildcard host. */
function allowInvalidWildcardHostRule(old: Ingress): boolean {
  return (old.spec?.rules ?? []).some((r) => (r.host ?? '').includes('*') && validateIngressRuleValue(r.http, Path.root('')).length > 0);
}

// ---- IngressClass ----

const httpPathFmt = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
const httpPathRe = new RegExp(`^${httpPathFmt}$`);

/** apimachinery's `IsDomainPrefixedPath`: `<DNS subdomain>/<HTTP path>`, such as `acme.io/foo`. */
export function isDomainPrefixedPath(path: Path, value: string): FieldError[] {
  if (value === '') return [fieldErrors.required(path, '')];
  const slash = value.indexOf('/');
  const host = slash < 0 ? value : value.slice(0, slash);
  const rest = slash < 0 ? '' : value.slice(slash + 1);
  if (slash < 0 || host === '' || rest === '') return [fieldErrors.invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const errs = isDNS1123Subdomain(host).map((m) => fieldErrors.invalid(path, host, m));
  if (!httpPathRe.test(rest)) errs.push(fieldErrors.invalid(path, rest, regexError('Invalid path', httpPathFmt)));
  return errs;
}

/** `validateIngressClassParametersReference`: the reference, and a namespace exactly when scoped to one. */
function validateIngressClassParametersReference(params: IngressClassParametersReference | undefined, path: Path): FieldError[] {
  if (params == null) return [];
  const errs = validateIngressTypedLocalObjectReference(params, path);
  if (params.scope == null) {
    errs.push(fieldErrors.required(path.child('scope'), ''));
    return errs;
  }
  const scope = params.scope;
  if (!supportedIngressClassParametersReferenceScopes.includes(scope)) {
    errs.push(fieldErrors.notSupported(path.child('scope'), scope, supportedIngressClassParametersReferenceScopes));
    return errs;
  }
  if (scope === 'Namespace') {
    if (params.namespace == null) errs.push(fieldErrors.required(path.child('namespace'), "`parameters.scope` is set to 'Namespace'"));
    else for (const m of nameIsDNSLabel(params.namespace, false)) errs.push(fieldErrors.invalid(path.child('namespace'), params.namespace, m));
  }
  if (scope === 'Cluster' && params.namespace != null) errs.push(fieldErrors.forbidden(path.child('namespace'), "`parameters.scope` is set to 'Cluster'"));
  return errs;
}

/** `ValidateIngressClass`: a controller (a domain-prefixed path of at most 250 bytes) and parameters. */
export function validateIngressClass(ic: IngressClass): FieldError[] {
  const errs = validateObjectMeta(ic.metadata, { namespaced: false, nameFn: nameIsDNSSubdomain });
  const sp = Path.root('spec');
  const controller = ic.spec?.controller ?? '';
  if (controller.length > maxLenIngressClassController) errs.push(fieldErrors.tooLong(sp.child('controller'), '', maxLenIngressClassController));
  errs.push(...isDomainPrefixedPath(sp.child('controller'), controller));
  errs.push(...validateIngressClassParametersReference(ic.spec?.parameters, sp.child('parameters')));
  return errs;
}

/** `ValidateIngressClassUpdate`: the controller is immutable; the new object must be valid. */
export function validateIngressClassUpdate(ic: IngressClass, old: IngressClass): FieldError[] {
  const errs = validateObjectMetaUpdate(ic.metadata, old.metadata);
  errs.push(...validateImmutableField(ic.spec?.controller ?? '', old.spec?.controller ?? '', Path.root('spec').child('controller')));
  errs.push(...validateIngressClass(ic));
  return errs;
}
