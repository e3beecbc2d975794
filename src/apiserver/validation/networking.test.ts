/**
 * pkg/apis/networking/validation/validation_test.go (v1.32), case by case, through the dispatcher (so the
 * strategies' order and options are exercised too). Where upstream only asserts that a case fails, or on
 * which field, these assert the whole message.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HTTPIngressPath, Ingress, IngressBackend, IngressClass, IngressClassParametersReference, NetworkPolicy, NetworkPolicyPeer, NetworkPolicyPort } from 'kubernetes-types/networking/v1.js';
import { fieldErrorString } from '../../api/field-errors.js';
import { validate } from './index.js';

const npKind = { group: 'networking.k8s.io', kind: 'NetworkPolicy' };
const ingKind = { group: 'networking.k8s.io', kind: 'Ingress' };
const icKind = { group: 'networking.k8s.io', kind: 'IngressClass' };
const errs = (kind: { group: string; kind: string }, obj: object, old?: object, subresource?: string): string[] =>
  validate(kind, obj as never, old as never, subresource !== undefined ? { subresource } : {}).map(fieldErrorString);

const subdomainMsg = (v: string): string =>
  `Invalid value: "${v}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`;
const wildcardMsg = (v: string): string =>
  `Invalid value: "${v}": a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`;

// ---- TestValidateNetworkPolicy ----

type Tweak = (np: NetworkPolicy) => void;

function makeNetworkPolicy(...tweaks: Tweak[]): NetworkPolicy {
  const np: NetworkPolicy = { metadata: { name: 'foo', namespace: 'bar' }, spec: { podSelector: { matchLabels: { a: 'b' } } } };
  for (const t of tweaks) t(np);
  return np;
}

const specOf = (np: NetworkPolicy): NonNullable<NetworkPolicy['spec']> => np.spec as NonNullable<NetworkPolicy['spec']>;

/** upstream's `makePort`: a zero port (0, "" or "0") and a zero endPort are left out. */
function makePort(protocol: string | undefined, port: number | string, endPort: number): NetworkPolicyPort {
  const p: NetworkPolicyPort = {};
  if (protocol !== undefined) p.protocol = protocol;
  if (port !== 0 && port !== '' && port !== '0') p.port = port;
  if (endPort !== 0) p.endPort = endPort;
  return p;
}

const setIngressEmptyFirstElement: Tweak = (np) => {
  specOf(np).ingress = [{}];
};
const setIngressFromEmptyFirstElement: Tweak = (np) => {
  if (specOf(np).ingress === undefined) setIngressEmptyFirstElement(np);
  (specOf(np).ingress ?? [])[0] = { ...(specOf(np).ingress ?? [])[0], from: [{}] };
};
const ingressPeer = (np: NetworkPolicy): NetworkPolicyPeer => {
  if (specOf(np).ingress === undefined) setIngressEmptyFirstElement(np);
  const rule = (specOf(np).ingress ?? [])[0] ?? {};
  if (rule.from === undefined) setIngressFromEmptyFirstElement(np);
  return ((specOf(np).ingress ?? [])[0]?.from ?? [])[0] as NetworkPolicyPeer;
};
const setIngressEmptyPorts: Tweak = (np) => {
  specOf(np).ingress = [{ ports: [{}] }];
};
const setIngressPorts =
  (...ports: NetworkPolicyPort[]): Tweak =>
  (np) => {
    if (specOf(np).ingress === undefined) setIngressEmptyFirstElement(np);
    ((specOf(np).ingress ?? [])[0] ?? {}).ports = ports;
  };
const setIngressFromPodSelector =
  (k: string, v: string): Tweak =>
  (np) => {
    ingressPeer(np).podSelector = { matchLabels: { [k]: v } };
  };
const setIngressFromNamespaceSelector: Tweak = (np) => {
  ingressPeer(np).namespaceSelector = { matchLabels: { c: 'd' } };
};
const setIngressFromIPBlockIPV4: Tweak = (np) => {
  ingressPeer(np).ipBlock = { cidr: '192.168.0.0/16', except: ['192.168.3.0/24', '192.168.4.0/24'] };
};
const setIngressFromIPBlockIPV6: Tweak = (np) => {
  ingressPeer(np).ipBlock = { cidr: 'fd00:192:168::/48', except: ['fd00:192:168:3::/64', 'fd00:192:168:4::/64'] };
};
const setEgressEmptyFirstElement: Tweak = (np) => {
  specOf(np).egress = [{}];
};
const setEgressToEmptyFirstElement: Tweak = (np) => {
  if (specOf(np).egress === undefined) setEgressEmptyFirstElement(np);
  ((specOf(np).egress ?? [])[0] ?? {}).to = [{}];
};
const egressPeer = (np: NetworkPolicy): NetworkPolicyPeer => {
  if (specOf(np).egress === undefined) setEgressEmptyFirstElement(np);
  if ((specOf(np).egress ?? [])[0]?.to === undefined) setEgressToEmptyFirstElement(np);
  return ((specOf(np).egress ?? [])[0]?.to ?? [])[0] as NetworkPolicyPeer;
};
const setEgressToNamespaceSelector: Tweak = (np) => {
  egressPeer(np).namespaceSelector = { matchLabels: { c: 'd' } };
};
const setEgressToPodSelector: Tweak = (np) => {
  egressPeer(np).podSelector = { matchLabels: { c: 'd' } };
};
const setEgressToIPBlockIPV4: Tweak = (np) => {
  egressPeer(np).ipBlock = { cidr: '192.168.0.0/16', except: ['192.168.3.0/24', '192.168.4.0/24'] };
};
const setEgressToIPBlockIPV6: Tweak = (np) => {
  egressPeer(np).ipBlock = { cidr: 'fd00:192:168::/48', except: ['fd00:192:168:3::/64', 'fd00:192:168:4::/64'] };
};
const setEgressPorts =
  (...ports: NetworkPolicyPort[]): Tweak =>
  (np) => {
    if (specOf(np).egress === undefined) setEgressEmptyFirstElement(np);
    ((specOf(np).egress ?? [])[0] ?? {}).ports = ports;
  };
const setPolicyTypesEgress: Tweak = (np) => {
  specOf(np).policyTypes = ['Egress'];
};
const setPolicyTypesIngressEgress: Tweak = (np) => {
  specOf(np).policyTypes = ['Ingress', 'Egress'];
};

const networkPolicySuccessCases: NetworkPolicy[] = [
  makeNetworkPolicy(setIngressEmptyFirstElement),
  makeNetworkPolicy(setIngressFromEmptyFirstElement, setIngressEmptyPorts),
  makeNetworkPolicy(setIngressPorts(makePort(undefined, 80, 0), makePort('TCP', 0, 0), makePort('TCP', 443, 0), makePort('UDP', 'dns', 0), makePort('SCTP', 7777, 0))),
  makeNetworkPolicy(setIngressFromPodSelector('c', 'd')),
  makeNetworkPolicy(setIngressFromNamespaceSelector),
  makeNetworkPolicy(setIngressFromPodSelector('e', 'f'), setIngressFromNamespaceSelector),
  makeNetworkPolicy(setEgressToNamespaceSelector, setIngressFromIPBlockIPV4),
  makeNetworkPolicy(setIngressFromIPBlockIPV4),
  makeNetworkPolicy(setEgressToIPBlockIPV4, setPolicyTypesEgress),
  makeNetworkPolicy(setEgressToIPBlockIPV4, setPolicyTypesIngressEgress),
  makeNetworkPolicy(setEgressPorts(makePort(undefined, 80, 0), makePort('TCP', 0, 0), makePort('TCP', 443, 0), makePort('UDP', 'dns', 0), makePort('SCTP', 7777, 0))),
  makeNetworkPolicy(setEgressToNamespaceSelector, setIngressFromIPBlockIPV6),
  makeNetworkPolicy(setIngressFromIPBlockIPV6),
  makeNetworkPolicy(setEgressToIPBlockIPV6, setPolicyTypesEgress),
  makeNetworkPolicy(setEgressToIPBlockIPV6, setPolicyTypesIngressEgress),
  makeNetworkPolicy(setEgressPorts(makePort(undefined, 32000, 32768), makePort('UDP', 'dns', 0))),
  makeNetworkPolicy(
    setEgressToNamespaceSelector,
    setEgressPorts(makePort(undefined, 30000, 32768), makePort(undefined, 32000, 32768)),
    setIngressFromPodSelector('e', 'f'),
    setIngressPorts(makePort('TCP', 32768, 32768)),
  ),
];

networkPolicySuccessCases.forEach((np, i) => {
  test(`NetworkPolicy success case ${i} is valid`, () => {
    assert.deepEqual(errs(npKind, np), []);
  });
});

const invalidSelector = { 'NoUppercaseOrSpecialCharsLike=Equals': 'b' };
const invalidSelectorMsg = (path: string): string =>
  `${path}.matchLabels: Invalid value: "NoUppercaseOrSpecialCharsLike=Equals": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`;
const portRange = 'must be between 1 and 65535, inclusive';
const portNameMsgs = (path: string): string[] => [
  `${path}: Invalid value: "!@#$": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)`,
  `${path}: Invalid value: "!@#$": must contain at least one letter (a-z)`,
];
const ipBlock = 'spec.ingress[0].from[0].ipBlock';
const setIngressIPBlock =
  (cidr: string, except?: string[]): Tweak =>
  (np) => {
    ingressPeer(np).ipBlock = { cidr, ...(except !== undefined ? { except } : {}) };
  };

const networkPolicyErrorCases: { name: string; np: NetworkPolicy; want: string[] }[] = [
  { name: 'namespaceSelector and ipBlock', np: makeNetworkPolicy(setIngressFromNamespaceSelector, setIngressFromIPBlockIPV4), want: ['spec.ingress[0].from[0]: Forbidden: may not specify both ipBlock and another peer'] },
  { name: 'podSelector and ipBlock', np: makeNetworkPolicy(setEgressToPodSelector, setEgressToIPBlockIPV4), want: ['spec.egress[0].to[0]: Forbidden: may not specify both ipBlock and another peer'] },
  {
    name: 'missing from and to type',
    np: makeNetworkPolicy(setIngressFromEmptyFirstElement, setEgressToEmptyFirstElement),
    want: ['spec.ingress[0].from[0]: Required value: must specify a peer', 'spec.egress[0].to[0]: Required value: must specify a peer'],
  },
  {
    name: 'invalid spec.podSelector',
    np: makeNetworkPolicy(setIngressFromNamespaceSelector, (np) => {
      np.spec = { podSelector: { matchLabels: invalidSelector } };
    }),
    want: [invalidSelectorMsg('spec.podSelector')],
  },
  {
    name: 'invalid ingress.ports.protocol',
    np: makeNetworkPolicy(setIngressPorts(makePort('ICMP', 80, 0))),
    want: ['spec.ingress[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"'],
  },
  { name: 'invalid ingress.ports.port (int)', np: makeNetworkPolicy(setIngressPorts(makePort('TCP', 123456789, 0))), want: [`spec.ingress[0].ports[0].port: Invalid value: 123456789: ${portRange}`] },
  { name: 'invalid ingress.ports.port (str)', np: makeNetworkPolicy(setIngressPorts(makePort('TCP', '!@#$', 0))), want: portNameMsgs('spec.ingress[0].ports[0].port') },
  {
    name: 'invalid ingress.from.podSelector',
    np: makeNetworkPolicy(setIngressFromEmptyFirstElement, (np) => {
      ingressPeer(np).podSelector = { matchLabels: invalidSelector };
    }),
    want: [invalidSelectorMsg('spec.ingress[0].from[0].podSelector')],
  },
  {
    name: 'invalid egress.to.podSelector',
    np: makeNetworkPolicy(setEgressToEmptyFirstElement, (np) => {
      egressPeer(np).podSelector = { matchLabels: invalidSelector };
    }),
    want: [invalidSelectorMsg('spec.egress[0].to[0].podSelector')],
  },
  {
    name: 'invalid egress.ports.protocol',
    np: makeNetworkPolicy(setEgressPorts(makePort('ICMP', 80, 0))),
    want: ['spec.egress[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"'],
  },
  { name: 'invalid egress.ports.port (int)', np: makeNetworkPolicy(setEgressPorts(makePort('TCP', 123456789, 0))), want: [`spec.egress[0].ports[0].port: Invalid value: 123456789: ${portRange}`] },
  { name: 'invalid egress.ports.port (str)', np: makeNetworkPolicy(setEgressPorts(makePort('TCP', '!@#$', 0))), want: portNameMsgs('spec.egress[0].ports[0].port') },
  {
    name: 'invalid ingress.from.namespaceSelector',
    np: makeNetworkPolicy(setIngressFromEmptyFirstElement, (np) => {
      ingressPeer(np).namespaceSelector = { matchLabels: invalidSelector };
    }),
    want: [invalidSelectorMsg('spec.ingress[0].from[0].namespaceSelector')],
  },
  { name: 'missing cidr field', np: makeNetworkPolicy(setIngressFromIPBlockIPV4, setIngressIPBlock('', ['192.168.3.0/24'])), want: [`${ipBlock}.cidr: Required value`] },
  { name: 'invalid cidr format', np: makeNetworkPolicy(setIngressIPBlock('192.168.5.6', ['192.168.3.0/24'])), want: [`${ipBlock}.cidr: Invalid value: "192.168.5.6": not a valid CIDR`] },
  { name: 'invalid ipv6 cidr format', np: makeNetworkPolicy(setIngressIPBlock('fd00:192:168::', ['fd00:192:168:3::/64'])), want: [`${ipBlock}.cidr: Invalid value: "fd00:192:168::": not a valid CIDR`] },
  { name: 'except field is an empty string', np: makeNetworkPolicy(setIngressIPBlock('192.168.0.0/16', [''])), want: [`${ipBlock}.except[0]: Invalid value: "": not a valid CIDR`] },
  { name: 'except field is an space string', np: makeNetworkPolicy(setIngressIPBlock('192.168.0.0/16', [' '])), want: [`${ipBlock}.except[0]: Invalid value: " ": not a valid CIDR`] },
  { name: 'except field is an invalid ip', np: makeNetworkPolicy(setIngressIPBlock('192.168.0.0/16', ['300.300.300.300'])), want: [`${ipBlock}.except[0]: Invalid value: "300.300.300.300": not a valid CIDR`] },
  {
    name: 'except IP is outside of CIDR range',
    np: makeNetworkPolicy(setIngressIPBlock('192.168.8.0/24', ['192.168.9.1/32'])),
    want: [`${ipBlock}.except[0]: Invalid value: "192.168.9.1/32": must be a strict subset of \`cidr\``],
  },
  {
    name: 'except IP is not strictly within CIDR range',
    np: makeNetworkPolicy(setIngressIPBlock('192.168.0.0/24', ['192.168.0.0/24'])),
    want: [`${ipBlock}.except[0]: Invalid value: "192.168.0.0/24": must be a strict subset of \`cidr\``],
  },
  {
    name: 'except IPv6 is outside of CIDR range',
    np: makeNetworkPolicy(setIngressIPBlock('fd00:192:168:1::/64', ['fd00:192:168:2::/64'])),
    want: [`${ipBlock}.except[0]: Invalid value: "fd00:192:168:2::/64": must be a strict subset of \`cidr\``],
  },
  {
    name: 'invalid policyTypes',
    np: makeNetworkPolicy(setEgressToIPBlockIPV4, (np) => {
      specOf(np).policyTypes = ['foo', 'bar'];
    }),
    want: ['spec.policyTypes[0]: Unsupported value: "foo": supported values: "Ingress", "Egress"', 'spec.policyTypes[1]: Unsupported value: "bar": supported values: "Ingress", "Egress"'],
  },
  {
    name: 'too many policyTypes',
    np: makeNetworkPolicy(setEgressToIPBlockIPV4, (np) => {
      specOf(np).policyTypes = ['foo', 'bar', 'baz'];
    }),
    want: ['spec.policyTypes: Invalid value: []networking.PolicyType{"foo", "bar", "baz"}: may not specify more than two policyTypes'],
  },
  {
    name: 'multiple ports defined, one port range is invalid',
    np: makeNetworkPolicy(setEgressToNamespaceSelector, setEgressPorts(makePort('UDP', 35000, 32768), makePort(undefined, 32000, 32768))),
    want: ['spec.egress[0].ports[0].endPort: Invalid value: 35000: must be greater than or equal to `port`'],
  },
  {
    name: 'endPort defined with named/string port',
    np: makeNetworkPolicy(setEgressToNamespaceSelector, setEgressPorts(makePort('UDP', 'dns', 32768), makePort(undefined, 32000, 32768))),
    want: ['spec.egress[0].ports[0].endPort: Invalid value: 32768: may not be specified when `port` is non-numeric'],
  },
  {
    name: 'endPort defined without port defined',
    np: makeNetworkPolicy(setEgressToNamespaceSelector, setEgressPorts(makePort('TCP', 0, 32768))),
    want: ['spec.egress[0].ports[0].endPort: Invalid value: 32768: may not be specified when `port` is not specified'],
  },
  {
    name: 'port is greater than endPort',
    np: makeNetworkPolicy(setEgressToNamespaceSelector, setEgressPorts(makePort('SCTP', 35000, 32768))),
    want: ['spec.egress[0].ports[0].endPort: Invalid value: 35000: must be greater than or equal to `port`'],
  },
  {
    name: 'multiple invalid port ranges defined',
    np: makeNetworkPolicy(setEgressToNamespaceSelector, setEgressPorts(makePort('UDP', 35000, 32768), makePort('TCP', 0, 32768), makePort('TCP', 'https', 32768))),
    want: [
      'spec.egress[0].ports[0].endPort: Invalid value: 35000: must be greater than or equal to `port`',
      'spec.egress[0].ports[1].endPort: Invalid value: 32768: may not be specified when `port` is not specified',
      'spec.egress[0].ports[2].endPort: Invalid value: 32768: may not be specified when `port` is non-numeric',
    ],
  },
  {
    name: 'invalid endport range defined',
    np: makeNetworkPolicy(setEgressToNamespaceSelector, setEgressPorts(makePort('TCP', 30000, 65537))),
    want: [`spec.egress[0].ports[0].endPort: Invalid value: 65537: ${portRange}`],
  },
];

for (const tc of networkPolicyErrorCases) {
  test(`NetworkPolicy: ${tc.name}`, () => {
    assert.deepEqual(errs(npKind, tc.np), tc.want);
  });
}

test('NetworkPolicy CIDRs are parsed sloppily, as 1.32 does: IPv4 octets may have leading zeros', () => {
  assert.deepEqual(errs(npKind, makeNetworkPolicy(setIngressIPBlock('010.0.0.0/8', ['010.1.0.0/16']))), []);
  // A v4-in-v6 CIDR contains IPv4 addresses (Go's IPNet.Contains), but prefixes compare as written.
  assert.deepEqual(errs(npKind, makeNetworkPolicy(setIngressIPBlock('::ffff:10.0.0.0/104', ['::ffff:10.1.0.0/112']))), []);
  assert.deepEqual(errs(npKind, makeNetworkPolicy(setIngressIPBlock('::ffff:10.0.0.0/104', ['10.1.0.0/16']))), [`${ipBlock}.except[0]: Invalid value: "10.1.0.0/16": must be a strict subset of \`cidr\``]);
});

// ---- TestValidateNetworkPolicyUpdate ----

const npWith = (name: string, podSelector: object): NetworkPolicy => ({ metadata: { name, namespace: 'bar', resourceVersion: '1' }, spec: { podSelector, ingress: [] } });

test('NetworkPolicy update: no change', () => {
  assert.deepEqual(errs(npKind, npWith('foo', { matchLabels: { a: 'b' } }), npWith('foo', { matchLabels: { a: 'b' } })), []);
});

test('NetworkPolicy update: change spec', () => {
  assert.deepEqual(errs(npKind, npWith('foo', { matchLabels: { a: 'b' } }), npWith('foo', {})), []);
});

test('NetworkPolicy update: change name', () => {
  assert.deepEqual(errs(npKind, npWith('baz', {}), npWith('foo', {})), ['metadata.name: Invalid value: "baz": field is immutable']);
});

test('NetworkPolicy update: spec errors are reported by both ValidateNetworkPolicy and ValidateNetworkPolicyUpdate', () => {
  const bad = makeNetworkPolicy(setIngressPorts(makePort('ICMP', 80, 0)));
  const protocol = 'spec.ingress[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"';
  assert.deepEqual(errs(npKind, bad, makeNetworkPolicy()), [protocol, protocol]);
});

test('NetworkPolicy update: a stored pod selector with invalid values may keep them', () => {
  const badValues = { matchExpressions: [{ key: 'a', operator: 'In', values: ['not valid'] }] };
  assert.deepEqual(errs(npKind, npWith('foo', badValues), npWith('foo', badValues)), []);
  assert.equal(errs(npKind, npWith('foo', badValues), npWith('foo', {})).length, 2);
});

// ---- TestValidateIngress ----

const serviceBackend = (): IngressBackend => ({ service: { name: 'defaultbackend', port: { number: 80 } } });
const resourceBackend = { apiGroup: 'example.com', kind: 'foo', name: 'bar' };

function baseIngress(): Ingress {
  return {
    metadata: { name: 'foo', namespace: 'default' },
    spec: {
      defaultBackend: serviceBackend(),
      rules: [{ host: 'foo.bar.com', http: { paths: [{ path: '/foo', pathType: 'ImplementationSpecific', backend: serviceBackend() }] } }],
    },
    status: { loadBalancer: { ingress: [{ ip: '127.0.0.1' }] } },
  };
}

type IngressSpecT = NonNullable<Ingress['spec']>;
const ingSpec = (ing: Ingress): IngressSpecT => ing.spec as IngressSpecT;
const firstPath = (ing: Ingress): HTTPIngressPath => ((ingSpec(ing).rules ?? [])[0]?.http?.paths ?? [])[0] as HTTPIngressPath;

const ingressCases: { name: string; tweak: (ing: Ingress) => void; want: string[] }[] = [
  {
    name: 'empty path (implementation specific)',
    tweak: (ing) => {
      firstPath(ing).path = '';
    },
    want: [],
  },
  {
    name: 'valid path',
    tweak: (ing) => {
      firstPath(ing).path = '/valid';
    },
    want: [],
  },
  {
    name: 'backend with no service',
    tweak: (ing) => {
      const svc = ingSpec(ing).defaultBackend?.service;
      if (svc !== undefined) svc.name = '';
    },
    want: ['spec.defaultBackend.service.name: Required value'],
  },
  {
    name: 'invalid path type',
    tweak: (ing) => {
      firstPath(ing).pathType = 'foo';
    },
    want: ['spec.rules[0].http.paths[0].pathType: Unsupported value: "foo": supported values: "Exact", "ImplementationSpecific", "Prefix"'],
  },
  {
    name: 'empty path (prefix)',
    tweak: (ing) => {
      Object.assign(firstPath(ing), { path: '', pathType: 'Prefix' });
    },
    want: ['spec.rules[0].http.paths[0].path: Invalid value: "": must be an absolute path'],
  },
  {
    name: 'no paths',
    tweak: (ing) => {
      const rule = (ingSpec(ing).rules ?? [])[0];
      if (rule?.http !== undefined) rule.http.paths = [];
    },
    want: ['spec.rules[0].http.paths: Required value'],
  },
  {
    name: 'invalid host (foobar:80)',
    tweak: (ing) => {
      ((ingSpec(ing).rules ?? [])[0] ?? {}).host = 'foobar:80';
    },
    want: [`spec.rules[0].host: ${subdomainMsg('foobar:80')}`],
  },
  {
    name: 'invalid host (127.0.0.1)',
    tweak: (ing) => {
      ((ingSpec(ing).rules ?? [])[0] ?? {}).host = '127.0.0.1';
    },
    want: ['spec.rules[0].host: Invalid value: "127.0.0.1": must be a DNS name, not an IP address'],
  },
  {
    name: 'valid wildcard host',
    tweak: (ing) => {
      ((ingSpec(ing).rules ?? [])[0] ?? {}).host = '*.bar.com';
    },
    want: [],
  },
  {
    name: 'invalid wildcard host (foo.*.bar.com)',
    tweak: (ing) => {
      ((ingSpec(ing).rules ?? [])[0] ?? {}).host = 'foo.*.bar.com';
    },
    want: [`spec.rules[0].host: ${wildcardMsg('foo.*.bar.com')}`],
  },
  {
    name: 'invalid wildcard host (*)',
    tweak: (ing) => {
      ((ingSpec(ing).rules ?? [])[0] ?? {}).host = '*';
    },
    want: [`spec.rules[0].host: ${wildcardMsg('*')}`],
  },
  {
    name: 'path resource backend and service name are not allowed together',
    tweak: (ing) => {
      firstPath(ing).backend = { ...serviceBackend(), resource: resourceBackend };
    },
    want: ['spec.rules[0].http.paths[0].backend: Invalid value: "": cannot set both resource and service backends'],
  },
  {
    name: 'spec.backend resource and service name are not allowed together',
    tweak: (ing) => {
      ingSpec(ing).defaultBackend = { ...serviceBackend(), resource: resourceBackend };
    },
    want: ['spec.defaultBackend: Invalid value: "": cannot set both resource and service backends'],
  },
];

for (const tc of ingressCases) {
  test(`Ingress: ${tc.name}`, () => {
    const ing = baseIngress();
    tc.tweak(ing);
    assert.deepEqual(errs(ingKind, ing), tc.want);
  });
}

test('Ingress: neither a default backend nor rules', () => {
  assert.deepEqual(errs(ingKind, { metadata: { name: 'i', namespace: 'default' }, spec: {} }), ['spec: Invalid value: []networking.IngressRule(nil): either `defaultBackend` or `rules` must be specified']);
  assert.deepEqual(errs(ingKind, { metadata: { name: 'i', namespace: 'default' }, spec: { rules: [] } }), ['spec: Invalid value: []networking.IngressRule{}: either `defaultBackend` or `rules` must be specified']);
});

test('Ingress: service backends need a DNS-1035 name and one of port name or number', () => {
  const ing = baseIngress();
  ingSpec(ing).defaultBackend = { service: { name: '1bad', port: { name: 'http', number: 80 } } };
  firstPath(ing).backend = { service: { name: 'svc', port: {} } };
  assert.deepEqual(errs(ingKind, ing), [
    `spec.defaultBackend.service.name: Invalid value: "1bad": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
    'spec.defaultBackend: Invalid value: "": cannot set both port name & port number',
    'spec.rules[0].http.paths[0].backend: Required value: port name or number is required',
  ]);
});

test('Ingress: a path without pathType is refused before its backend is looked at', () => {
  const ing = baseIngress();
  firstPath(ing).backend = {};
  delete (firstPath(ing) as { pathType?: string }).pathType;
  assert.deepEqual(errs(ingKind, ing), ['spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified']);
  firstPath(ing).pathType = 'Exact';
  assert.deepEqual(errs(ingKind, ing), ['spec.rules[0].http.paths[0].backend: Invalid value: "": resource or service backend is required']);
});

// ---- TestValidateIngressRuleValue ----

const ruleValueCases: { name: string; pathType: string; path: string; want?: string }[] = [
  { name: 'implementation specific: no leading slash', pathType: 'ImplementationSpecific', path: 'foo', want: 'must be an absolute path' },
  { name: 'implementation specific: leading slash', pathType: 'ImplementationSpecific', path: '/foo' },
  { name: 'implementation specific: many slashes', pathType: 'ImplementationSpecific', path: '/foo/bar/foo' },
  { name: 'implementation specific: repeating slashes', pathType: 'ImplementationSpecific', path: '/foo//bar/foo' },
  { name: 'prefix: no leading slash', pathType: 'Prefix', path: 'foo', want: 'must be an absolute path' },
  { name: 'prefix: leading slash', pathType: 'Prefix', path: '/foo' },
  { name: 'prefix: many slashes', pathType: 'Prefix', path: '/foo/bar/foo' },
  { name: 'prefix: repeating slashes', pathType: 'Prefix', path: '/foo//bar/foo', want: "must not contain '//'" },
  { name: 'exact: no leading slash', pathType: 'Exact', path: 'foo', want: 'must be an absolute path' },
  { name: 'exact: leading slash', pathType: 'Exact', path: '/foo' },
  { name: 'exact: many slashes', pathType: 'Exact', path: '/foo/bar/foo' },
  { name: 'exact: repeating slashes', pathType: 'Exact', path: '/foo//bar/foo', want: "must not contain '//'" },
  { name: 'prefix: with /./', pathType: 'Prefix', path: '/foo/./foo', want: "must not contain '/./'" },
  { name: 'exact: with /../', pathType: 'Exact', path: '/foo/../foo', want: "must not contain '/../'" },
  { name: 'prefix: with %2f', pathType: 'Prefix', path: '/foo/%2f/foo', want: "must not contain '%2f'" },
  { name: 'exact: with %2F', pathType: 'Exact', path: '/foo/%2F/foo', want: "must not contain '%2F'" },
];

for (const tc of ruleValueCases) {
  test(`Ingress rule value: ${tc.name}`, () => {
    const ing = baseIngress();
    Object.assign(firstPath(ing), { path: tc.path, pathType: tc.pathType });
    const want = tc.want === undefined ? [] : [`spec.rules[0].http.paths[0].path: Invalid value: ${JSON.stringify(tc.path)}: ${tc.want}`];
    assert.deepEqual(errs(ingKind, ing), want);
  });
}

test('Ingress rule value: a path may not end in /. or /..', () => {
  const ing = baseIngress();
  Object.assign(firstPath(ing), { path: '/foo/..', pathType: 'Prefix' });
  assert.deepEqual(errs(ingKind, ing), ['spec.rules[0].http.paths[0].path: Invalid value: "/foo/..": cannot end with \'/..\'']);
});

// ---- TestValidateIngressCreate ----

function createBase(): Ingress {
  return { metadata: { name: 'test123', namespace: 'test123', resourceVersion: '1234' }, spec: { defaultBackend: serviceBackend(), rules: [] } };
}

const ruleWithPath = (path: string, pathType: string, backend: IngressBackend = serviceBackend(), host = 'foo.bar.com'): NonNullable<IngressSpecT['rules']> => [{ host, http: { paths: [{ path, pathType, backend }] } }];
const invalidSecretMsg = `spec.tls[0].secretName: ${subdomainMsg('invalid name')}`;
const relativeFooMsg = 'spec.rules[0].http.paths[0].path: Invalid value: "foo": must be an absolute path';

const createCases: { name: string; tweak: (ing: Ingress) => void; want: string[] }[] = [
  {
    name: 'class field set',
    tweak: (ing) => {
      ingSpec(ing).ingressClassName = 'bar';
    },
    want: [],
  },
  {
    name: 'class annotation set',
    tweak: (ing) => {
      (ing.metadata ?? {}).annotations = { 'kubernetes.io/ingress.class': 'foo' };
    },
    want: [],
  },
  {
    name: 'class field and annotation set with same value',
    tweak: (ing) => {
      ingSpec(ing).ingressClassName = 'foo';
      (ing.metadata ?? {}).annotations = { 'kubernetes.io/ingress.class': 'foo' };
    },
    want: [],
  },
  {
    name: 'class field and annotation set with different value',
    tweak: (ing) => {
      ingSpec(ing).ingressClassName = 'bar';
      (ing.metadata ?? {}).annotations = { 'kubernetes.io/ingress.class': 'foo' };
    },
    want: ['annotations.kubernetes.io/ingress.class: Invalid value: "foo": must match `ingressClassName` when both are specified'],
  },
  {
    name: 'valid regex path',
    tweak: (ing) => {
      ingSpec(ing).rules = ruleWithPath('/([a-z0-9]*)', 'ImplementationSpecific');
    },
    want: [],
  },
  {
    name: 'invalid regex path allowed (v1)',
    tweak: (ing) => {
      ingSpec(ing).rules = ruleWithPath('/([a-z0-9]*)[', 'ImplementationSpecific');
    },
    want: [],
  },
  {
    name: 'Spec.Backend.Resource field allowed on create',
    tweak: (ing) => {
      ingSpec(ing).defaultBackend = { resource: resourceBackend };
    },
    want: [],
  },
  {
    name: 'Paths.Backend.Resource field allowed on create',
    tweak: (ing) => {
      ingSpec(ing).rules = ruleWithPath('/([a-z0-9]*)', 'ImplementationSpecific', { resource: resourceBackend });
    },
    want: [],
  },
  {
    name: 'valid secret',
    tweak: (ing) => {
      ingSpec(ing).tls = [{ secretName: 'valid' }];
    },
    want: [],
  },
  {
    name: 'invalid secret',
    tweak: (ing) => {
      ingSpec(ing).tls = [{ secretName: 'invalid name' }];
    },
    want: [invalidSecretMsg],
  },
  {
    name: 'valid rules with wildcard host',
    tweak: (ing) => {
      ingSpec(ing).tls = [{ hosts: ['*.bar.com'] }];
      ingSpec(ing).rules = ruleWithPath('/foo', 'Exact', serviceBackend(), '*.foo.com');
    },
    want: [],
  },
  {
    name: 'invalid rules with wildcard host',
    tweak: (ing) => {
      ingSpec(ing).tls = [{ hosts: ['*.bar.com'] }];
      ingSpec(ing).rules = ruleWithPath('foo', 'Exact', serviceBackend(), '*.foo.com');
    },
    want: [relativeFooMsg],
  },
];

for (const tc of createCases) {
  test(`Ingress create: ${tc.name}`, () => {
    const ing = createBase();
    tc.tweak(ing);
    assert.deepEqual(errs(ingKind, ing), tc.want);
  });
}

// ---- TestValidateIngressUpdate ----

const updateCases: { name: string; tweak: (next: Ingress, old: Ingress) => void; want: string[] }[] = [
  {
    name: 'class field set',
    tweak: (next) => {
      ingSpec(next).ingressClassName = 'bar';
    },
    want: [],
  },
  {
    name: 'class annotation set',
    tweak: (next) => {
      (next.metadata ?? {}).annotations = { 'kubernetes.io/ingress.class': 'foo' };
    },
    want: [],
  },
  {
    name: 'class field and annotation set',
    tweak: (next) => {
      ingSpec(next).ingressClassName = 'bar';
      (next.metadata ?? {}).annotations = { 'kubernetes.io/ingress.class': 'foo' };
    },
    want: [],
  },
  {
    name: 'valid regex path -> valid regex path',
    tweak: (next, old) => {
      ingSpec(old).rules = ruleWithPath('/([a-z0-9]*)', 'ImplementationSpecific');
      ingSpec(next).rules = ruleWithPath('/([a-z0-9%]*)', 'ImplementationSpecific');
    },
    want: [],
  },
  {
    name: 'valid regex path -> invalid regex path',
    tweak: (next, old) => {
      ingSpec(old).rules = ruleWithPath('/([a-z0-9]*)', 'ImplementationSpecific');
      ingSpec(next).rules = ruleWithPath('/bar[', 'ImplementationSpecific');
    },
    want: [],
  },
  {
    name: 'invalid regex path -> valid regex path',
    tweak: (next, old) => {
      ingSpec(old).rules = ruleWithPath('/bar[', 'ImplementationSpecific');
      ingSpec(next).rules = ruleWithPath('/([a-z0-9]*)', 'ImplementationSpecific');
    },
    want: [],
  },
  {
    name: 'invalid regex path -> invalid regex path',
    tweak: (next, old) => {
      ingSpec(old).rules = ruleWithPath('/foo[', 'ImplementationSpecific');
      ingSpec(next).rules = ruleWithPath('/bar[', 'ImplementationSpecific');
    },
    want: [],
  },
  {
    name: 'new Backend.Resource allowed on update',
    tweak: (next, old) => {
      ingSpec(old).defaultBackend = serviceBackend();
      ingSpec(next).defaultBackend = { resource: resourceBackend };
    },
    want: [],
  },
  {
    name: 'old DefaultBackend.Resource allowed on update',
    tweak: (next, old) => {
      ingSpec(old).defaultBackend = { resource: resourceBackend };
      ingSpec(next).defaultBackend = { resource: resourceBackend };
    },
    want: [],
  },
  {
    name: 'changing spec.backend from resource -> no resource',
    tweak: (next, old) => {
      ingSpec(old).defaultBackend = { resource: resourceBackend };
      ingSpec(next).defaultBackend = serviceBackend();
    },
    want: [],
  },
  {
    name: 'changing path backend from resource -> no resource',
    tweak: (next, old) => {
      ingSpec(old).rules = ruleWithPath('/foo[', 'ImplementationSpecific', { resource: resourceBackend });
      ingSpec(next).rules = ruleWithPath('/bar[', 'ImplementationSpecific');
    },
    want: [],
  },
  {
    name: 'changing path backend from resource -> resource',
    tweak: (next, old) => {
      ingSpec(old).rules = ruleWithPath('/foo[', 'ImplementationSpecific', { resource: resourceBackend });
      ingSpec(next).rules = ruleWithPath('/bar[', 'ImplementationSpecific', { resource: resourceBackend });
    },
    want: [],
  },
  {
    name: 'changing path backend from non-resource -> non-resource',
    tweak: (next, old) => {
      ingSpec(old).rules = ruleWithPath('/foo[', 'ImplementationSpecific');
      ingSpec(next).rules = ruleWithPath('/bar[', 'ImplementationSpecific');
    },
    want: [],
  },
  {
    name: 'changing path backend from non-resource -> resource',
    tweak: (next, old) => {
      ingSpec(old).rules = ruleWithPath('/foo[', 'ImplementationSpecific');
      ingSpec(next).rules = ruleWithPath('/bar[', 'ImplementationSpecific', { resource: resourceBackend });
    },
    want: [],
  },
  {
    name: 'change valid secret -> invalid secret',
    tweak: (next, old) => {
      ingSpec(old).tls = [{ secretName: 'valid' }];
      ingSpec(next).tls = [{ secretName: 'invalid name' }];
    },
    want: [invalidSecretMsg],
  },
  {
    name: 'change invalid secret -> invalid secret',
    tweak: (next, old) => {
      ingSpec(old).tls = [{ secretName: 'invalid name 1' }];
      ingSpec(next).tls = [{ secretName: 'invalid name 2' }];
    },
    want: [],
  },
  {
    name: 'change valid rules with wildcard host -> invalid rules',
    tweak: (next, old) => {
      ingSpec(old).tls = [{ hosts: ['*.bar.com'] }];
      ingSpec(old).rules = ruleWithPath('/foo', 'Exact', serviceBackend(), '*.foo.com');
      ingSpec(next).tls = [{ hosts: ['*.bar.com'] }];
      ingSpec(next).rules = ruleWithPath('foo', 'Exact', serviceBackend(), '*.foo.com');
    },
    want: [relativeFooMsg],
  },
  {
    name: 'change invalid rules with wildcard host -> invalid rules',
    tweak: (next, old) => {
      ingSpec(old).tls = [{ hosts: ['*.bar.com'] }];
      ingSpec(old).rules = ruleWithPath('foo', 'Exact', serviceBackend(), '*.foo.com');
      ingSpec(next).tls = [{ hosts: ['*.bar.com'] }];
      ingSpec(next).rules = ruleWithPath('bar', 'Exact', serviceBackend(), '*.foo.com');
    },
    want: [],
  },
];

for (const tc of updateCases) {
  test(`Ingress update: ${tc.name}`, () => {
    const next: Ingress = { metadata: { name: 'test123', namespace: 'test123', resourceVersion: '1234' }, spec: { defaultBackend: serviceBackend() } };
    const old: Ingress = { metadata: { name: 'test123', namespace: 'test123', resourceVersion: '1234' }, spec: { defaultBackend: serviceBackend() } };
    tc.tweak(next, old);
    assert.deepEqual(errs(ingKind, next, old), tc.want);
  });
}

// ---- TestValidateIngressTLS / TestValidateEmptyIngressTLS ----

test("Ingress TLS: spec.tls[0].hosts[0]: Invalid value: 'foo.*.bar.com'", () => {
  const ing = baseIngress();
  ((ingSpec(ing).rules ?? [])[0] ?? {}).host = '*.foo.bar.com';
  ingSpec(ing).tls = [{ hosts: ['foo.*.bar.com'] }];
  assert.deepEqual(errs(ingKind, ing), [`spec.tls[0].hosts[0]: ${wildcardMsg('foo.*.bar.com')}`]);
});

test("Ingress TLS: spec.tls[0].hosts: Valid value: '*.bar.com'", () => {
  const ing = baseIngress();
  ((ingSpec(ing).rules ?? [])[0] ?? {}).host = '*.bar.com';
  ingSpec(ing).tls = [{ hosts: ['*.bar.com'] }];
  assert.deepEqual(errs(ingKind, ing), []);
});

test('Ingress TLS: an empty TLS entry, or one without hosts, is valid', () => {
  for (const tls of [[{}], [{ hosts: [] }]]) {
    const ing: Ingress = {
      metadata: { name: 'foo', namespace: 'default' },
      spec: { rules: [{ host: 'foo.bar.com', http: { paths: [{ pathType: 'ImplementationSpecific', backend: { service: { name: 'defaultbackend', port: { number: 443 } } } }] } }], tls },
    };
    assert.deepEqual(errs(ingKind, ing), []);
  }
});

// ---- TestValidateIngressStatusUpdate ----

function statusIngress(lb: { ip?: string; hostname?: string }): Ingress {
  const ing = baseIngress();
  ing.metadata = { name: 'foo', namespace: 'default', resourceVersion: '9' };
  ing.status = { loadBalancer: { ingress: [lb] } };
  return ing;
}

test('Ingress status update: a valid load balancer status', () => {
  assert.deepEqual(errs(ingKind, statusIngress({ ip: '127.0.0.2', hostname: 'foo.com' }), statusIngress({ ip: '127.0.0.1', hostname: 'foo.bar.com' }), 'status'), []);
});

test('Ingress status update: status.loadBalancer.ingress[0].ip: Invalid value', () => {
  assert.deepEqual(errs(ingKind, statusIngress({ ip: 'abcd', hostname: 'foo.com' }), statusIngress({ ip: '127.0.0.1', hostname: 'foo.bar.com' }), 'status'), [
    'status.loadBalancer.ingress[0].ip: Invalid value: "abcd": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
  ]);
});

test('Ingress status update: status.loadBalancer.ingress[0].hostname: Invalid value', () => {
  assert.deepEqual(errs(ingKind, statusIngress({ ip: '127.0.0.1', hostname: '127.0.0.1' }), statusIngress({ ip: '127.0.0.1', hostname: 'foo.bar.com' }), 'status'), [
    'status.loadBalancer.ingress[0].hostname: Invalid value: "127.0.0.1": must be a DNS name, not an IP address',
  ]);
});

// ---- TestValidateIngressClass ----

function makeIngressClass(name: string, controller: string, parameters?: IngressClassParametersReference): IngressClass {
  return { metadata: { name }, spec: { controller, ...(parameters !== undefined ? { parameters } : {}) } };
}

function params(apiGroup: string | undefined, kind: string, name: string, scope: string | undefined, namespace: string | undefined): IngressClassParametersReference {
  const p: IngressClassParametersReference = { kind, name };
  if (apiGroup !== undefined) p.apiGroup = apiGroup;
  if (scope !== undefined) p.scope = scope;
  if (namespace !== undefined) p.namespace = namespace;
  return p;
}

const ingressClassCases: { name: string; ic: IngressClass; want: string[] }[] = [
  { name: 'valid name, valid controller', ic: makeIngressClass('test123', 'foo.co/bar'), want: [] },
  { name: 'invalid name, valid controller', ic: makeIngressClass('test*123', 'foo.co/bar'), want: [`metadata.name: ${subdomainMsg('test*123')}`] },
  { name: 'valid name, empty controller', ic: makeIngressClass('test123', ''), want: ['spec.controller: Required value'] },
  { name: 'valid name, controller max length', ic: makeIngressClass('test123', `foo.co/${'a'.repeat(243)}`), want: [] },
  { name: 'valid name, controller too long', ic: makeIngressClass('test123', `foo.co/${'a'.repeat(244)}`), want: ['spec.controller: Too long: may not be more than 250 bytes'] },
  { name: 'valid name, valid controller, valid params', ic: makeIngressClass('test123', 'foo.co/bar', params('example.com', 'foo', 'bar', 'Cluster', undefined)), want: [] },
  {
    name: 'valid name, valid controller, invalid params (no kind)',
    ic: makeIngressClass('test123', 'foo.co/bar', params('example.com', '', 'bar', 'Cluster', undefined)),
    want: ['spec.parameters.kind: Required value: kind is required'],
  },
  {
    name: 'valid name, valid controller, invalid params (no name)',
    ic: makeIngressClass('test123', 'foo.co/bar', params('example.com', 'foo', '', 'Cluster', undefined)),
    want: ['spec.parameters.name: Required value: name is required'],
  },
  {
    name: 'valid name, valid controller, invalid params (bad kind)',
    ic: makeIngressClass('test123', 'foo.co/bar', params(undefined, 'foo/', 'bar', 'Cluster', undefined)),
    want: [`spec.parameters.kind: Invalid value: "foo/": may not contain '/'`],
  },
  {
    name: 'valid name, valid controller, invalid params (bad scope)',
    ic: makeIngressClass('test123', 'foo.co/bar', params(undefined, 'foo', 'bar', 'bad-scope', undefined)),
    want: ['spec.parameters.scope: Unsupported value: "bad-scope": supported values: "Cluster", "Namespace"'],
  },
  { name: 'valid name, valid controller, valid Namespace scope', ic: makeIngressClass('test123', 'foo.co/bar', params(undefined, 'foo', 'bar', 'Namespace', 'foo-ns')), want: [] },
  {
    name: 'valid name, valid controller, valid scope, invalid namespace',
    ic: makeIngressClass('test123', 'foo.co/bar', params(undefined, 'foo', 'bar', 'Namespace', 'foo_ns')),
    want: [
      `spec.parameters.namespace: Invalid value: "foo_ns": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    ],
  },
  { name: 'valid name, valid controller, valid Cluster scope', ic: makeIngressClass('test123', 'foo.co/bar', params(undefined, 'foo', 'bar', 'Cluster', undefined)), want: [] },
  {
    name: 'valid name, valid controller, invalid scope',
    ic: makeIngressClass('test123', 'foo.co/bar', params(undefined, 'foo', 'bar', undefined, 'foo_ns')),
    want: ['spec.parameters.scope: Required value'],
  },
  {
    name: 'namespace not set when scope is Namespace',
    ic: makeIngressClass('test123', 'foo.co/bar', params(undefined, 'foo', 'bar', 'Namespace', undefined)),
    want: ["spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'"],
  },
  {
    name: 'namespace is forbidden when scope is Cluster',
    ic: makeIngressClass('test123', 'foo.co/bar', params(undefined, 'foo', 'bar', 'Cluster', 'foo-ns')),
    want: ["spec.parameters.namespace: Forbidden: `parameters.scope` is set to 'Cluster'"],
  },
  {
    name: 'empty namespace is forbidden when scope is Cluster',
    ic: makeIngressClass('test123', 'foo.co/bar', params(undefined, 'foo', 'bar', 'Cluster', '')),
    want: ["spec.parameters.namespace: Forbidden: `parameters.scope` is set to 'Cluster'"],
  },
];

for (const tc of ingressClassCases) {
  test(`IngressClass: ${tc.name}`, () => {
    assert.deepEqual(errs(icKind, tc.ic), tc.want);
  });
}

test('IngressClass: the controller is a domain-prefixed path', () => {
  assert.deepEqual(errs(icKind, makeIngressClass('c', 'nginx')), ['spec.controller: Invalid value: "nginx": must be a domain-prefixed path (such as "acme.io/foo")']);
  assert.deepEqual(errs(icKind, makeIngressClass('c', 'Acme.io/a b')), [
    `spec.controller: ${subdomainMsg('Acme.io')}`,
    `spec.controller: Invalid value: "a b": Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')`,
  ]);
});

test('IngressClass update: name change (the controller is immutable)', () => {
  const next = makeIngressClass('test123', 'foo.co/bar');
  next.metadata = { name: 'test123', resourceVersion: '2' };
  assert.deepEqual(errs(icKind, next, makeIngressClass('test123', 'foo.co/different')), ['spec.controller: Invalid value: "foo.co/bar": field is immutable']);
});

test('IngressClass update: parameters change', () => {
  const next = makeIngressClass('test123', 'foo.co/bar', params('v1', 'ConfigMap', 'foo', 'Namespace', 'bar'));
  next.metadata = { name: 'test123', resourceVersion: '2' };
  assert.deepEqual(errs(icKind, next, makeIngressClass('test123', 'foo.co/bar')), []);
});

test('Ingress status update: IPs are parsed as 1.32 parses them (ParseIPSloppy: leading zeros allowed)', () => {
  const old = statusIngress({ ip: '127.0.0.1', hostname: 'foo.bar.com' });
  assert.deepEqual(errs(ingKind, statusIngress({ ip: '010.001.1.1' }), old, 'status'), []);
  assert.deepEqual(errs(ingKind, statusIngress({ ip: '::ffff:10.1.1.1', hostname: '010.1.1.1' }), old, 'status'), [
    'status.loadBalancer.ingress[0].hostname: Invalid value: "010.1.1.1": must be a DNS name, not an IP address',
  ]);
});
