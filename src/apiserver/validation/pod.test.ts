import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Container, Pod, PodSpec } from 'kubernetes-types/core/v1.js';
import { aggregateMessage, fieldErrorString, Path } from '../../api/field-errors.js';
import { defaultPod } from './defaults.js';
import { validateLinux, validateOS, validatePodCreate, validatePodUpdate, validateWindows, validateWindowsHostProcessPod } from './pod.js';

function container(name: string, extra: Partial<Container> = {}): Container {
  return { name, image: 'img:1', imagePullPolicy: 'IfNotPresent', terminationMessagePolicy: 'File', ...extra };
}

function makePod(spec: Partial<PodSpec> = {}, name = 'p'): Pod {
  return {
    metadata: { name, namespace: 'default' },
    spec: { containers: [container('ctr')], restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', ...spec },
  };
}

const specPath = Path.root('spec');

// validateOS (pkg/apis/core/validation): empty name, unsupported name, valid names.
const osCases: { name: string; spec: Partial<PodSpec>; want: string[] }[] = [
  { name: 'no OS field, no checks', spec: {}, want: [] },
  { name: 'empty OS name is required', spec: { os: { name: '' } }, want: ['spec.os.name: Required value: cannot be empty'] },
  { name: 'unsupported OS name', spec: { os: { name: 'macos' } }, want: ['spec.os: Unsupported value: "macos": supported values: "linux", "windows"'] },
  { name: 'linux is supported', spec: { os: { name: 'linux' } }, want: [] },
  { name: 'windows is supported', spec: { os: { name: 'windows' } }, want: [] },
];

for (const tc of osCases) {
  test(`validateOS: ${tc.name}`, () => {
    const pod = makePod(tc.spec);
    assert.deepEqual(validateOS(pod.spec ?? { containers: [] }, specPath.child('os')).map(fieldErrorString), tc.want);
  });
}

test('validateOS: OS-specific checks run only when the OS name is valid', () => {
  const pod = makePod({ os: { name: 'macos' }, securityContext: { seLinuxOptions: { level: 's0' } } });
  assert.equal(aggregateMessage(validatePodCreate(pod)), 'spec.os: Unsupported value: "macos": supported values: "linux", "windows"');
});

test('validateLinux: windows options cannot be set for a linux pod (pod, init, regular containers)', () => {
  const spec: PodSpec = {
    os: { name: 'linux' },
    securityContext: { windowsOptions: { runAsUserName: 'x' } },
    initContainers: [container('init', { securityContext: { windowsOptions: { hostProcess: false } } })],
    containers: [container('ctr', { securityContext: { windowsOptions: { gmsaCredentialSpecName: 'g' } } })],
  };
  assert.deepEqual(validateLinux(spec, specPath).map(fieldErrorString), [
    'spec.securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod',
    'spec.initContainers[0].securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod',
    'spec.containers[0].securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod',
  ]);
});

test('validateWindows: every Linux-only pod field is forbidden, in upstream order', () => {
  const spec = {
    os: { name: 'windows' },
    hostUsers: false,
    hostPID: true,
    hostIPC: true,
    shareProcessNamespace: true,
    securityContext: {
      appArmorProfile: { type: 'RuntimeDefault' },
      seLinuxOptions: { level: 's0' },
      seccompProfile: { type: 'RuntimeDefault' },
      fsGroup: 1,
      fsGroupChangePolicy: 'Always',
      sysctls: [{ name: 'kernel.shm_rmid_forced', value: '0' }],
      runAsUser: 1,
      runAsGroup: 1,
      supplementalGroups: [1],
      supplementalGroupsPolicy: 'Merge',
    },
    containers: [],
  } as PodSpec;
  const msg = 'Forbidden: cannot be set for a windows pod';
  assert.deepEqual(validateWindows(spec, specPath).map(fieldErrorString), [
    `spec.securityContext.appArmorProfile: ${msg}`,
    `spec.securityContext.seLinuxOptions: ${msg}`,
    `spec.hostUsers: ${msg}`,
    `spec.hostPID: ${msg}`,
    `spec.hostIPC: ${msg}`,
    `spec.securityContext.seccompProfile: ${msg}`,
    `spec.securityContext.fsGroup: ${msg}`,
    `spec.securityContext.fsGroupChangePolicy: ${msg}`,
    `spec.securityContext.sysctls: ${msg}`,
    `spec.shareProcessNamespace: ${msg}`,
    `spec.securityContext.runAsUser: ${msg}`,
    `spec.securityContext.runAsGroup: ${msg}`,
    `spec.securityContext.supplementalGroups: ${msg}`,
    `spec.securityContext.supplementalGroupsPolicy: ${msg}`,
  ]);
});

test('validateWindows: every Linux-only container field is forbidden (init, regular, ephemeral)', () => {
  const sc = {
    appArmorProfile: { type: 'RuntimeDefault' },
    seLinuxOptions: { level: 's0' },
    seccompProfile: { type: 'RuntimeDefault' },
    capabilities: { add: ['NET_ADMIN'] },
    readOnlyRootFilesystem: true,
    privileged: false,
    allowPrivilegeEscalation: false,
    procMount: 'Default',
    runAsUser: 1,
    runAsGroup: 1,
  };
  const spec: PodSpec = { os: { name: 'windows' }, initContainers: [container('i', { securityContext: sc })], containers: [container('c', { securityContext: { runAsUser: 5 } })], ephemeralContainers: [{ name: 'e', securityContext: { privileged: true } }] };
  const got = validateWindows(spec, specPath).map(fieldErrorString);
  const fields = ['appArmorProfile', 'seLinuxOptions', 'seccompProfile', 'capabilities', 'readOnlyRootFilesystem', 'privileged', 'allowPrivilegeEscalation', 'procMount', 'runAsUser', 'runAsGroup'];
  assert.deepEqual(got, [
    ...fields.map((f) => `spec.initContainers[0].securityContext.${f}: Forbidden: cannot be set for a windows pod`),
    'spec.containers[0].securityContext.runAsUser: Forbidden: cannot be set for a windows pod',
    'spec.ephemeralContainers[0].securityContext.privileged: Forbidden: cannot be set for a windows pod',
  ]);
});

test('validateWindows: runAsNonRoot and windowsOptions are allowed on a windows pod', () => {
  const pod = makePod({
    os: { name: 'windows' },
    securityContext: { runAsNonRoot: true, windowsOptions: { runAsUserName: 'ContainerUser' } },
    containers: [container('ctr', { securityContext: { runAsNonRoot: true, windowsOptions: { gmsaCredentialSpecName: 'gmsa' } } })],
  });
  assert.deepEqual(validatePodCreate(pod), []);
});

test('validateWindows: a windows pod with hostPID false and hostIPC false is fine', () => {
  assert.deepEqual(validateWindows({ os: { name: 'windows' }, hostPID: false, hostIPC: false, containers: [] }, specPath), []);
});

const hostProcessCases: { name: string; spec: PodSpec; want: string[] }[] = [
  {
    name: 'all containers hostProcess with hostNetwork is valid',
    spec: { hostNetwork: true, securityContext: { windowsOptions: { hostProcess: true } }, containers: [container('a'), container('b')] },
    want: [],
  },
  {
    name: 'mixing hostProcess and non-hostProcess containers',
    spec: { hostNetwork: true, containers: [container('a', { securityContext: { windowsOptions: { hostProcess: true } } }), container('b')] },
    want: ['spec: Invalid value: "": If pod contains any hostProcess containers then all containers must be HostProcess containers'],
  },
  {
    name: 'hostProcess requires hostNetwork',
    spec: { securityContext: { windowsOptions: { hostProcess: true } }, containers: [container('a')] },
    want: ['spec.hostNetwork: Invalid value: false: hostNetwork must be true if pod contains any hostProcess containers'],
  },
  {
    name: 'pod and container hostProcess must be identical',
    spec: { hostNetwork: true, securityContext: { windowsOptions: { hostProcess: true } }, containers: [container('a', { securityContext: { windowsOptions: { hostProcess: false } } })] },
    want: [
      'spec.containers[0].securityContext.windowsOptions.hostProcess: Invalid value: false: pod hostProcess value must be identical if both are specified, was true',
    ],
  },
];

for (const tc of hostProcessCases) {
  test(`validateWindowsHostProcessPod: ${tc.name}`, () => assert.deepEqual(validateWindowsHostProcessPod(tc.spec, specPath).map(fieldErrorString), tc.want));
}

test('resources: requests must be less than or equal to limits', () => {
  const pod = makePod({ containers: [container('ctr', { resources: { limits: { cpu: '1' }, requests: { cpu: '2' } } })] });
  assert.equal(aggregateMessage(validatePodCreate(pod)), 'spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1');
});

test('resources: negative quantities and non-standard names', () => {
  const pod = makePod({ containers: [container('ctr', { resources: { requests: { cpu: '-1', gpu: '1' } } })] });
  assert.deepEqual(validatePodCreate(pod).map(fieldErrorString), [
    'spec.containers[0].resources.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0',
    // A ResourceName prints through its String(), unquoted; validateResourceName reports first.
    'spec.containers[0].resources.requests[gpu]: Invalid value: gpu: must be a standard resource type or fully qualified',
    'spec.containers[0].resources.requests[gpu]: Invalid value: gpu: must be a standard resource for containers',
  ]);
});

test('containers: image required, names unique DNS labels, ports, env names', () => {
  const pod = makePod({
    containers: [
      container('Bad_Name', { image: '' }),
      container('dup', { ports: [{ containerPort: 0 }, { containerPort: 70000, name: 'http--x', protocol: 'TCP' }], env: [{ name: '1abc' }, { name: '' }] }),
      container('dup'),
    ],
  });
  assert.deepEqual(validatePodCreate(pod).map(fieldErrorString), [
    "spec.containers[0].name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    'spec.containers[1].ports[0].containerPort: Required value',
    'spec.containers[1].ports[0].protocol: Required value',
    'spec.containers[1].ports[1].name: Invalid value: "http--x": must not contain consecutive hyphens',
    'spec.containers[1].ports[1].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
    "spec.containers[1].env[0].name: Invalid value: \"1abc\": a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')",
    'spec.containers[1].env[1].name: Required value',
    'spec.containers[2].name: Duplicate value: "dup"',
    'spec.containers[0].image: Required value',
  ]);
});

test('restartPolicy and dnsPolicy must be supported values', () => {
  const pod = makePod({ restartPolicy: 'Sometimes', dnsPolicy: 'Nope' });
  assert.deepEqual(validatePodCreate(pod).map(fieldErrorString), [
    'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
    'spec.dnsPolicy: Unsupported value: "Nope": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"',
  ]);
});

test('a defaulted minimal pod validates', () => {
  const pod: Pod = { metadata: { name: 'web', namespace: 'default' }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } };
  defaultPod(pod);
  assert.deepEqual(validatePodCreate(pod), []);
});

test('pod update: only image, activeDeadlineSeconds, tolerations additions may change', () => {
  const old = makePod({ nodeName: 'a' });
  const okUpdate = makePod({ nodeName: 'a', containers: [container('ctr', { image: 'img:2' })], tolerations: [{ key: 'x', operator: 'Exists' }] });
  assert.deepEqual(validatePodUpdate(okUpdate, old), []);
  const bad = makePod({ nodeName: 'b' });
  const errs = validatePodUpdate(bad, old);
  assert.equal(errs.length, 1);
  assert.equal(errs[0]?.field, 'spec');
  assert.ok(
    errs[0]?.detail.startsWith(
      'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n  core.PodSpec{\n',
    ),
    errs[0]?.detail,
  );
  assert.ok(errs[0]?.detail.includes('- \tNodeName: "a",\n+ \tNodeName: "b",'), errs[0]?.detail);
});

test('pod update: containers may not be added or removed', () => {
  const old = makePod();
  const bad = makePod({ containers: [container('ctr'), container('two')] });
  assert.equal(aggregateMessage(validatePodUpdate(bad, old)), 'spec.containers: Forbidden: pod updates may not add or remove containers');
});

test('pod update: existing tolerations can not be modified', () => {
  const old = makePod({ tolerations: [{ key: 'a', operator: 'Exists' }] });
  const bad = makePod({ tolerations: [{ key: 'a', operator: 'Equal', value: 'v' }] });
  const msgs = validatePodUpdate(bad, old).map(fieldErrorString);
  assert.equal(msgs[0], 'spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds');
});

test('pod update: spec.os is immutable', () => {
  const errs = validatePodUpdate(makePod({ os: { name: 'windows' } }), makePod({ os: { name: 'linux' } }));
  assert.equal(errs.length, 1);
  assert.ok(errs[0]?.detail.includes('OS'));
});

test('volumes: sources need their names and paths; mounts must name a volume', () => {
  const pod = makePod({
    volumes: [
      { name: 'cfg', configMap: {} },
      { name: 'host', hostPath: { path: '' } },
      { name: 'none' },
    ],
    containers: [container('ctr', { volumeMounts: [{ name: 'missing', mountPath: '/x' }] })],
  });
  assert.deepEqual(validatePodCreate(pod).map(fieldErrorString), [
    'spec.volumes[0].configMap.name: Required value',
    'spec.volumes[1].hostPath.path: Required value',
    'spec.volumes[2]: Required value: must specify a volume type',
    'spec.containers[0].volumeMounts[0].name: Not found: "missing"',
  ]);
});

test('security contexts: IDs in range; hostNetwork ports must match host ports', () => {
  const pod = makePod({
    hostNetwork: true,
    securityContext: { runAsUser: -1 },
    containers: [container('ctr', { securityContext: { runAsGroup: 2147483648 }, ports: [{ containerPort: 80, hostPort: 8080, protocol: 'TCP' }] })],
  });
  assert.deepEqual(validatePodCreate(pod).map(fieldErrorString), [
    'spec.containers[0].ports[0].containerPort: Invalid value: 80: must match `hostPort` when `hostNetwork` is true',
    'spec.securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive',
    'spec.containers[0].securityContext.runAsGroup: Invalid value: 2147483648: must be between 0 and 2147483647, inclusive',
  ]);
});

test('pod update: empty strings and lists equal absent fields, as Go sees them', () => {
  const old = makePod({ tolerations: [{ key: 'a', operator: 'Exists' }] });
  const cur = makePod({ tolerations: [{ key: 'a', operator: 'Exists', value: '' }], nodeSelector: {}, volumes: [] });
  assert.deepEqual(validatePodUpdate(cur, old), []);
});
