/**
 * The check tables of `k8s.io/pod-security-admission/policy/check_*_test.go` (case names, pods and the exact
 * reason/detail strings), plus the evaluator's choice and order of checks per level and version.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod, PodSpec } from 'kubernetes-types/core/v1.js';
import { latestVersion, Level, minorVersion } from './_api.js';
import * as checks from './_checks.js';
import { aggregateCheckResults, forbiddenDetail, forbiddenReason, newEvaluator, type CheckPodFn } from './_policy.js';

interface Case {
  name: string;
  pod: Pod;
  expectReason?: string;
  expectDetail?: string;
  /** The check admits the pod (upstream's `allowed: true` cases). */
  allowed?: boolean;
}

function table(title: string, fn: CheckPodFn, cases: Case[]): void {
  for (const tc of cases) {
    test(`${title}: ${tc.name}`, () => {
      const r = fn(tc.pod.metadata ?? {}, tc.pod.spec ?? { containers: [] });
      if (tc.allowed === true) {
        assert.equal(r.allowed, true);
        return;
      }
      assert.equal(r.allowed, false, 'expected disallowed');
      assert.equal(r.forbiddenReason, tc.expectReason);
      assert.equal(r.forbiddenDetail, tc.expectDetail);
    });
  }
}

const spec = (s: Partial<PodSpec>): Pod => ({ spec: { containers: [], ...s } });

table('allowPrivilegeEscalation_1_25', checks.allowPrivilegeEscalation_1_25, [
  {
    name: 'multiple containers',
    pod: spec({
      containers: [
        { name: 'a' },
        { name: 'b', securityContext: {} },
        { name: 'c', securityContext: { allowPrivilegeEscalation: true } },
        { name: 'd', securityContext: { allowPrivilegeEscalation: false } },
      ],
    }),
    expectReason: 'allowPrivilegeEscalation != false',
    expectDetail: 'containers "a", "b", "c" must set securityContext.allowPrivilegeEscalation=false',
  },
  { name: 'windows pod, admit without checking privilegeEscalation', pod: spec({ os: { name: 'windows' }, containers: [{ name: 'a' }] }), allowed: true },
  {
    name: 'linux pod, reject if security context is not set',
    pod: spec({ os: { name: 'linux' }, containers: [{ name: 'a' }] }),
    expectReason: 'allowPrivilegeEscalation != false',
    expectDetail: 'container "a" must set securityContext.allowPrivilegeEscalation=false',
  },
]);

table('allowPrivilegeEscalation_1_8', checks.allowPrivilegeEscalation_1_8, [
  {
    name: 'multiple containers',
    pod: spec({
      containers: [
        { name: 'a' },
        { name: 'b', securityContext: {} },
        { name: 'c', securityContext: { allowPrivilegeEscalation: true } },
        { name: 'd', securityContext: { allowPrivilegeEscalation: false } },
      ],
    }),
    expectReason: 'allowPrivilegeEscalation != false',
    expectDetail: 'containers "a", "b", "c" must set securityContext.allowPrivilegeEscalation=false',
  },
  // Before 1.25 the check has no Windows exemption.
  {
    name: 'windows pod before 1.25',
    pod: spec({ os: { name: 'windows' }, containers: [{ name: 'a' }] }),
    expectReason: 'allowPrivilegeEscalation != false',
    expectDetail: 'container "a" must set securityContext.allowPrivilegeEscalation=false',
  },
]);

table('capabilitiesRestricted_1_22', checks.capabilitiesRestricted_1_22, [
  {
    name: 'multiple containers',
    pod: spec({
      containers: [
        { name: 'a', securityContext: { capabilities: { add: ['FOO', 'BAR'] } } },
        { name: 'b', securityContext: { capabilities: { add: ['BAR', 'BAZ'] } } },
        { name: 'c', securityContext: { capabilities: { add: ['NET_BIND_SERVICE', 'CHOWN'], drop: ['ALL', 'FOO'] } } },
      ],
    }),
    expectReason: 'unrestricted capabilities',
    expectDetail: 'containers "a", "b" must set securityContext.capabilities.drop=["ALL"]; containers "a", "b", "c" must not include "BAR", "BAZ", "CHOWN", "FOO" in securityContext.capabilities.add',
  },
  { name: 'drop ALL, add NET_BIND_SERVICE', pod: spec({ containers: [{ name: 'a', securityContext: { capabilities: { add: ['NET_BIND_SERVICE'], drop: ['ALL'] } } }] }), allowed: true },
]);

table('capabilitiesRestricted_1_25', checks.capabilitiesRestricted_1_25, [
  {
    name: 'multiple containers',
    pod: spec({
      containers: [
        { name: 'a', securityContext: { capabilities: { add: ['FOO', 'BAR'] } } },
        { name: 'b', securityContext: { capabilities: { add: ['BAR', 'BAZ'] } } },
        { name: 'c', securityContext: { capabilities: { add: ['NET_BIND_SERVICE', 'CHOWN'], drop: ['ALL', 'FOO'] } } },
      ],
    }),
    expectReason: 'unrestricted capabilities',
    expectDetail: 'containers "a", "b" must set securityContext.capabilities.drop=["ALL"]; containers "a", "b", "c" must not include "BAR", "BAZ", "CHOWN", "FOO" in securityContext.capabilities.add',
  },
  { name: 'windows pod, admit without checking capabilities', pod: spec({ os: { name: 'windows' }, containers: [{ name: 'a' }] }), allowed: true },
  {
    name: 'linux pod, reject if security context is not set',
    pod: spec({ os: { name: 'linux' }, containers: [{ name: 'a' }] }),
    expectReason: 'unrestricted capabilities',
    expectDetail: 'container "a" must set securityContext.capabilities.drop=["ALL"]',
  },
]);

table('runAsNonRoot', checks.runAsNonRoot_1_0, [
  {
    name: 'no explicit runAsNonRoot',
    pod: spec({ containers: [{ name: 'a' }] }),
    expectReason: 'runAsNonRoot != true',
    expectDetail: 'pod or container "a" must set securityContext.runAsNonRoot=true',
  },
  {
    name: 'pod runAsNonRoot=false',
    pod: spec({ securityContext: { runAsNonRoot: false }, containers: [{ name: 'a' }] }),
    expectReason: 'runAsNonRoot != true',
    expectDetail: 'pod must not set securityContext.runAsNonRoot=false',
  },
  {
    name: 'containers runAsNonRoot=false',
    pod: spec({
      securityContext: { runAsNonRoot: true },
      containers: [
        { name: 'a' },
        { name: 'b', securityContext: {} },
        { name: 'c', securityContext: { runAsNonRoot: false } },
        { name: 'd', securityContext: { runAsNonRoot: false } },
        { name: 'e', securityContext: { runAsNonRoot: true } },
        { name: 'f', securityContext: { runAsNonRoot: true } },
      ],
    }),
    expectReason: 'runAsNonRoot != true',
    expectDetail: 'containers "c", "d" must not set securityContext.runAsNonRoot=false',
  },
  {
    name: 'pod nil, container fallthrough',
    pod: spec({
      containers: [
        { name: 'a' },
        { name: 'b', securityContext: {} },
        { name: 'd', securityContext: { runAsNonRoot: true } },
        { name: 'e', securityContext: { runAsNonRoot: true } },
      ],
    }),
    expectReason: 'runAsNonRoot != true',
    expectDetail: 'pod or containers "a", "b" must set securityContext.runAsNonRoot=true',
  },
  // The user-namespace relaxation is behind the alpha UserNamespacesPodSecurityStandards gate, off in 1.32.
  {
    name: 'hostUsers=false is not relaxed without the UserNamespacesPodSecurityStandards gate',
    pod: spec({ hostUsers: false, containers: [{ name: 'a' }] }),
    expectReason: 'runAsNonRoot != true',
    expectDetail: 'pod or container "a" must set securityContext.runAsNonRoot=true',
  },
  // runAsNonRoot applies to Windows pods too (the kubelet checks runAsUserName).
  {
    name: 'windows pod is still checked',
    pod: spec({ os: { name: 'windows' }, containers: [{ name: 'a' }] }),
    expectReason: 'runAsNonRoot != true',
    expectDetail: 'pod or container "a" must set securityContext.runAsNonRoot=true',
  },
]);

table('runAsUser', checks.runAsUser_1_23, [
  {
    name: 'pod runAsUser=0',
    pod: spec({ securityContext: { runAsUser: 0 }, containers: [{ name: 'a' }] }),
    expectReason: 'runAsUser=0',
    expectDetail: 'pod must not set runAsUser=0',
  },
  { name: 'pod runAsUser=non-zero', pod: spec({ securityContext: { runAsUser: 1000 }, containers: [{ name: 'a' }] }), allowed: true },
  { name: 'pod runAsUser=nil', pod: spec({ containers: [{ name: 'a' }] }), allowed: true },
  {
    name: 'containers runAsUser=0',
    pod: spec({
      securityContext: { runAsUser: 1000 },
      containers: [
        { name: 'a' },
        { name: 'b', securityContext: {} },
        { name: 'c', securityContext: { runAsUser: 0 } },
        { name: 'd', securityContext: { runAsUser: 0 } },
        { name: 'e', securityContext: { runAsUser: 1 } },
        { name: 'f', securityContext: { runAsUser: 1 } },
      ],
    }),
    expectReason: 'runAsUser=0',
    expectDetail: 'containers "c", "d" must not set runAsUser=0',
  },
  {
    name: 'pod and containers runAsUser=0',
    pod: spec({ securityContext: { runAsUser: 0 }, containers: [{ name: 'a', securityContext: { runAsUser: 0 } }] }),
    expectReason: 'runAsUser=0',
    expectDetail: 'pod and container "a" must not set runAsUser=0',
  },
]);

const seccompRestrictedCommon: Case[] = [
  {
    name: 'no explicit seccomp',
    pod: spec({ containers: [{ name: 'a' }] }),
    expectReason: 'seccompProfile',
    expectDetail: 'pod or container "a" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"',
  },
  {
    name: 'pod seccomp invalid',
    pod: spec({ securityContext: { seccompProfile: { type: 'Unconfined' } }, containers: [{ name: 'a' }] }),
    expectReason: 'seccompProfile',
    expectDetail: 'pod must not set securityContext.seccompProfile.type to "Unconfined"',
  },
  {
    name: 'containers seccomp invalid',
    pod: spec({
      securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
      containers: [
        { name: 'a' },
        { name: 'b', securityContext: {} },
        { name: 'c', securityContext: { seccompProfile: { type: 'Unconfined' } } },
        { name: 'd', securityContext: { seccompProfile: { type: 'Unconfined' } } },
        { name: 'e', securityContext: { seccompProfile: { type: 'RuntimeDefault' } } },
        { name: 'f', securityContext: { seccompProfile: { type: 'RuntimeDefault' } } },
      ],
    }),
    expectReason: 'seccompProfile',
    expectDetail: 'containers "c", "d" must not set securityContext.seccompProfile.type to "Unconfined"',
  },
  {
    name: 'pod nil, container fallthrough',
    pod: spec({
      containers: [
        { name: 'a' },
        { name: 'b', securityContext: {} },
        { name: 'd', securityContext: { seccompProfile: { type: 'RuntimeDefault' } } },
        { name: 'e', securityContext: { seccompProfile: { type: 'RuntimeDefault' } } },
      ],
    }),
    expectReason: 'seccompProfile',
    expectDetail: 'pod or containers "a", "b" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"',
  },
];

table('seccompProfileRestricted_1_19', checks.seccompProfileRestricted_1_19, seccompRestrictedCommon);
table('seccompProfileRestricted_1_25', checks.seccompProfileRestricted_1_25, [
  ...seccompRestrictedCommon,
  { name: 'no explicit seccomp, windows Pod', pod: spec({ os: { name: 'windows' }, containers: [{ name: 'a' }] }), allowed: true },
  {
    name: 'no explicit seccomp, linux pod',
    pod: spec({ os: { name: 'linux' }, containers: [{ name: 'a' }] }),
    expectReason: 'seccompProfile',
    expectDetail: 'pod or container "a" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"',
  },
]);

table('seccompProfileBaseline_1_19', checks.seccompProfileBaseline_1_19, [
  {
    name: 'pod seccomp invalid',
    pod: spec({ securityContext: { seccompProfile: { type: 'Unconfined' } }, containers: [{ name: 'a' }] }),
    expectReason: 'seccompProfile',
    expectDetail: 'pod must not set securityContext.seccompProfile.type to "Unconfined"',
  },
  {
    name: 'containers seccomp invalid',
    pod: spec({
      securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
      containers: [
        { name: 'a' },
        { name: 'c', securityContext: { seccompProfile: { type: 'Unconfined' } } },
        { name: 'd', securityContext: { seccompProfile: { type: 'Unconfined' } } },
        { name: 'e', securityContext: { seccompProfile: { type: 'RuntimeDefault' } } },
      ],
    }),
    expectReason: 'seccompProfile',
    expectDetail: 'containers "c", "d" must not set securityContext.seccompProfile.type to "Unconfined"',
  },
  { name: 'no explicit seccomp is allowed at baseline', pod: spec({ containers: [{ name: 'a' }] }), allowed: true },
]);

table('seccompProfileBaseline_1_0', checks.seccompProfileBaseline_1_0, [
  {
    name: 'multiple forbidden annotations',
    pod: {
      metadata: {
        annotations: {
          'seccomp.security.alpha.kubernetes.io/pod': 'unconfined',
          'container.seccomp.security.alpha.kubernetes.io/a': 'runtime/default',
          'container.seccomp.security.alpha.kubernetes.io/b': 'docker/default',
          'container.seccomp.security.alpha.kubernetes.io/c': 'localhost/foo',
          'container.seccomp.security.alpha.kubernetes.io/d': 'unconfined',
        },
      },
      spec: { containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }, { name: 'd' }] },
    },
    expectReason: 'seccompProfile',
    expectDetail: 'forbidden annotations container.seccomp.security.alpha.kubernetes.io/d="unconfined", seccomp.security.alpha.kubernetes.io/pod="unconfined"',
  },
]);

table('restrictedVolumes', checks.restrictedVolumes_1_0, [
  {
    name: 'host path volumes',
    pod: spec({
      volumes: [
        { name: 'a1', emptyDir: {} },
        { name: 'a2', secret: {} },
        { name: 'a3', persistentVolumeClaim: { claimName: '' } },
        { name: 'a4', downwardAPI: {} },
        { name: 'a5', configMap: {} },
        { name: 'a6', projected: {} },
        { name: 'a7', csi: { driver: '' } },
        { name: 'a8', ephemeral: {} },
        { name: 'a9', image: {} } as never,
        { name: 'b1', hostPath: { path: '' } },
        { name: 'b2', gcePersistentDisk: { pdName: '' } },
        { name: 'b3', awsElasticBlockStore: { volumeID: '' } },
        { name: 'b4', gitRepo: { repository: '' } },
        { name: 'b5', nfs: { server: '', path: '' } },
        { name: 'b6', iscsi: { targetPortal: '', iqn: '', lun: 0 } },
        { name: 'b7', glusterfs: { endpoints: '', path: '' } },
        { name: 'b8', rbd: { monitors: [], image: '' } },
        { name: 'b9', flexVolume: { driver: '' } },
        { name: 'b10', cinder: { volumeID: '' } },
        { name: 'b11', cephfs: { monitors: [] } },
        { name: 'b12', flocker: {} },
        { name: 'b13', fc: {} },
        { name: 'b14', azureFile: { secretName: '', shareName: '' } },
        { name: 'b15', vsphereVolume: { volumePath: '' } },
        { name: 'b16', quobyte: { registry: '', volume: '' } },
        { name: 'b17', azureDisk: { diskName: '', diskURI: '' } },
        { name: 'b18', photonPersistentDisk: { pdID: '' } },
        { name: 'b19', portworxVolume: { volumeID: '' } },
        { name: 'b20', scaleIO: { gateway: '', system: '', secretRef: {} } },
        { name: 'b21', storageos: {} },
        { name: 'c1' },
      ],
    }),
    expectReason: 'restricted volume types',
    expectDetail:
      'volumes "b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8", "b9", "b10", "b11", "b12", "b13", "b14", "b15", "b16", "b17", "b18", "b19", "b20", "b21", "c1"' +
      ' use restricted volume types ' +
      '"awsElasticBlockStore", "azureDisk", "azureFile", "cephfs", "cinder", "fc", "flexVolume", "flocker", "gcePersistentDisk", "gitRepo", "glusterfs", ' +
      '"hostPath", "iscsi", "nfs", "photonPersistentDisk", "portworxVolume", "quobyte", "rbd", "scaleIO", "storageos", "unknown", "vsphereVolume"',
  },
  {
    name: 'one host path volume',
    pod: spec({ volumes: [{ name: 'data', hostPath: { path: '/var' } }] }),
    expectReason: 'restricted volume types',
    expectDetail: 'volume "data" uses restricted volume type "hostPath"',
  },
]);

table('sysctls_1_0', checks.sysctls_1_0, [
  {
    name: 'forbidden sysctls',
    pod: spec({ securityContext: { sysctls: [{ name: 'a', value: '' }, { name: 'b', value: '' }] } }),
    expectReason: 'forbidden sysctls',
    expectDetail: 'a, b',
  },
  {
    name: 'new sysctls',
    pod: spec({ securityContext: { sysctls: [{ name: 'net.ipv4.ip_local_reserved_ports', value: '' }, { name: 'net.ipv4.tcp_keepalive_time', value: '' }] } }),
    expectReason: 'forbidden sysctls',
    expectDetail: 'net.ipv4.ip_local_reserved_ports, net.ipv4.tcp_keepalive_time',
  },
]);
table('sysctls_1_27', checks.sysctls_1_27, [
  {
    name: 'new sysctls',
    pod: spec({ securityContext: { sysctls: [{ name: 'net.ipv4.ip_local_reserved_ports', value: '' }, { name: 'net.ipv4.tcp_keepalive_time', value: '' }] } }),
    expectReason: 'forbidden sysctls',
    expectDetail: 'net.ipv4.tcp_keepalive_time',
  },
]);
table('sysctls_1_29', checks.sysctls_1_29, [
  {
    name: 'new sysctls',
    pod: spec({ securityContext: { sysctls: [{ name: 'net.ipv4.tcp_keepalive_probes', value: '' }, { name: 'net.ipv4.tcp_rmem', value: '' }, { name: 'net.ipv4.tcp_wmem', value: '' }] } }),
    expectReason: 'forbidden sysctls',
    expectDetail: 'net.ipv4.tcp_rmem, net.ipv4.tcp_wmem',
  },
]);
table('sysctls_1_32', checks.sysctls_1_32, [
  {
    name: 'new sysctls',
    pod: spec({ securityContext: { sysctls: [{ name: 'net.ipv4.tcp_rmem', value: '' }, { name: 'net.ipv4.tcp_wmem', value: '' }] } }),
    allowed: true,
  },
  {
    name: 'forbidden sysctls',
    pod: spec({ securityContext: { sysctls: [{ name: 'kernel.msgmax', value: '' }, { name: 'net.ipv4.tcp_syncookies', value: '' }] } }),
    expectReason: 'forbidden sysctls',
    expectDetail: 'kernel.msgmax',
  },
]);

table('seLinuxOptions_1_0', checks.seLinuxOptions_1_0, [
  {
    name: 'invalid pod and containers',
    pod: spec({
      securityContext: { seLinuxOptions: { type: 'foo', user: 'bar', role: 'baz' } },
      containers: [
        { name: 'a', securityContext: { seLinuxOptions: { type: 'container_t' } } },
        { name: 'b', securityContext: { seLinuxOptions: { type: 'container_init_t' } } },
        { name: 'c', securityContext: { seLinuxOptions: { type: 'container_kvm_t' } } },
        { name: 'd', securityContext: { seLinuxOptions: { type: 'bar' } } },
        { name: 'e', securityContext: { seLinuxOptions: { user: 'bar' } } },
        { name: 'f', securityContext: { seLinuxOptions: { role: 'baz' } } },
      ],
    }),
    expectReason: 'seLinuxOptions',
    expectDetail: 'pod and containers "d", "e", "f" set forbidden securityContext.seLinuxOptions: types "bar", "foo"; user may not be set; role may not be set',
  },
  {
    name: 'invalid pod',
    pod: spec({
      securityContext: { seLinuxOptions: { type: 'foo', user: 'bar', role: 'baz' } },
      containers: [
        { name: 'a', securityContext: { seLinuxOptions: { type: 'container_t' } } },
        { name: 'b', securityContext: { seLinuxOptions: { type: 'container_init_t' } } },
        { name: 'c', securityContext: { seLinuxOptions: { type: 'container_kvm_t' } } },
      ],
    }),
    expectReason: 'seLinuxOptions',
    expectDetail: 'pod set forbidden securityContext.seLinuxOptions: type "foo"; user may not be set; role may not be set',
  },
  {
    name: 'invalid containers',
    pod: spec({
      securityContext: { seLinuxOptions: {} },
      containers: [
        { name: 'a', securityContext: { seLinuxOptions: { type: 'container_t' } } },
        { name: 'b', securityContext: { seLinuxOptions: { type: 'container_init_t' } } },
        { name: 'c', securityContext: { seLinuxOptions: { type: 'container_kvm_t' } } },
        { name: 'd', securityContext: { seLinuxOptions: { type: 'bar' } } },
        { name: 'e', securityContext: { seLinuxOptions: { user: 'bar' } } },
        { name: 'f', securityContext: { seLinuxOptions: { role: 'baz' } } },
      ],
    }),
    expectReason: 'seLinuxOptions',
    expectDetail: 'containers "d", "e", "f" set forbidden securityContext.seLinuxOptions: type "bar"; user may not be set; role may not be set',
  },
  {
    name: 'container_engine_t before 1.31',
    pod: spec({ containers: [{ name: 'a', securityContext: { seLinuxOptions: { type: 'container_engine_t' } } }] }),
    expectReason: 'seLinuxOptions',
    expectDetail: 'container "a" set forbidden securityContext.seLinuxOptions: type "container_engine_t"',
  },
]);
table('seLinuxOptions_1_31', checks.seLinuxOptions_1_31, [
  { name: 'container_engine_t', pod: spec({ containers: [{ name: 'a', securityContext: { seLinuxOptions: { type: 'container_engine_t' } } }] }), allowed: true },
]);

table('appArmorProfile', checks.appArmorProfile_1_0, [
  { name: 'container with default AppArmor + extra annotations', pod: { metadata: { annotations: { 'container.apparmor.security.beta.kubernetes.io/test': 'runtime/default', env: 'prod' } }, spec: { containers: [] } }, allowed: true },
  { name: 'container with local AppArmor + extra annotations', pod: { metadata: { annotations: { 'container.apparmor.security.beta.kubernetes.io/test': 'localhost/sec-profile01', env: 'dev' } }, spec: { containers: [] } }, allowed: true },
  { name: 'pod with runtime default', pod: spec({ securityContext: { appArmorProfile: { type: 'RuntimeDefault' } } }), allowed: true },
  {
    name: 'unconfined pod',
    pod: spec({ securityContext: { appArmorProfile: { type: 'Unconfined' } } }),
    expectReason: 'forbidden AppArmor profile',
    expectDetail: 'pod must not set AppArmor profile type to "Unconfined"',
  },
  {
    name: 'unconfined container',
    pod: spec({ securityContext: { appArmorProfile: { type: 'RuntimeDefault' } }, containers: [{ name: 'foo', securityContext: { appArmorProfile: { type: 'Unconfined' } } }] }),
    expectReason: 'forbidden AppArmor profile',
    expectDetail: 'container "foo" must not set AppArmor profile type to "Unconfined"',
  },
  {
    name: 'unconfined init container',
    pod: spec({
      securityContext: { appArmorProfile: { type: 'RuntimeDefault' } },
      containers: [{ name: 'foo' }],
      initContainers: [{ name: 'bar', securityContext: { appArmorProfile: { type: 'Unconfined' } } }],
    }),
    expectReason: 'forbidden AppArmor profile',
    expectDetail: 'container "bar" must not set AppArmor profile type to "Unconfined"',
  },
  {
    name: 'multiple containers',
    pod: {
      metadata: {
        annotations: {
          'container.apparmor.security.beta.kubernetes.io/': 'bogus',
          'container.apparmor.security.beta.kubernetes.io/a': '',
          'container.apparmor.security.beta.kubernetes.io/b': 'runtime/default',
          'container.apparmor.security.beta.kubernetes.io/c': 'localhost/',
          'container.apparmor.security.beta.kubernetes.io/d': 'localhost/foo',
          'container.apparmor.security.beta.kubernetes.io/e': 'unconfined',
          'container.apparmor.security.beta.kubernetes.io/f': 'unknown',
        },
      },
      spec: { containers: [] },
    },
    expectReason: 'forbidden AppArmor profiles',
    expectDetail:
      'annotations must not set AppArmor profile type to ' +
      ['"container.apparmor.security.beta.kubernetes.io/="bogus""', '"container.apparmor.security.beta.kubernetes.io/e="unconfined""', '"container.apparmor.security.beta.kubernetes.io/f="unknown""'].join(', '),
  },
]);

table('capabilitiesBaseline', checks.capabilitiesBaseline_1_0, [
  {
    name: 'multiple containers',
    pod: spec({
      containers: [
        { name: 'a', securityContext: { capabilities: { add: ['FOO', 'BAR', 'CHOWN'] } } },
        { name: 'b', securityContext: { capabilities: { add: ['BAR', 'BAZ', 'NET_BIND_SERVICE'] } } },
        { name: 'c', securityContext: { capabilities: { add: ['NET_BIND_SERVICE', 'CHOWN'] } } },
      ],
    }),
    expectReason: 'non-default capabilities',
    expectDetail: 'containers "a", "b" must not include "BAR", "BAZ", "FOO" in securityContext.capabilities.add',
  },
]);

table('hostNamespaces', checks.hostNamespaces_1_0, [
  { name: 'host network', pod: spec({ hostNetwork: true }), expectReason: 'host namespaces', expectDetail: 'hostNetwork=true' },
  { name: 'host PID', pod: spec({ hostPID: true }), expectReason: 'host namespaces', expectDetail: 'hostPID=true' },
  { name: 'host IPC', pod: spec({ hostIPC: true }), expectReason: 'host namespaces', expectDetail: 'hostIPC=true' },
  { name: 'all host namespaces', pod: spec({ hostNetwork: true, hostPID: true, hostIPC: true }), expectReason: 'host namespaces', expectDetail: 'hostNetwork=true, hostPID=true, hostIPC=true' },
]);

table('hostPathVolumes', checks.hostPathVolumes_1_0, [
  {
    name: 'host path volumes',
    pod: spec({ volumes: [{ name: 'a', hostPath: { path: '' } }, { name: 'b' }, { name: 'c', hostPath: { path: '' } }] }),
    expectReason: 'hostPath volumes',
    expectDetail: 'volumes "a", "c"',
  },
]);

table('hostPorts', checks.hostPorts_1_0, [
  {
    name: 'multiple containers',
    pod: spec({
      containers: [
        { name: 'a', ports: [{ containerPort: 1, hostPort: 0 }, { containerPort: 2 }] },
        { name: 'b', ports: [{ containerPort: 1, hostPort: 0 }, { containerPort: 2, hostPort: 20 }] },
        { name: 'c', ports: [{ containerPort: 1, hostPort: 10 }, { containerPort: 2, hostPort: 20 }] },
      ],
    }),
    expectReason: 'hostPort',
    expectDetail: 'containers "b", "c" use hostPorts 10, 20',
  },
  {
    name: 'one container, one port',
    pod: spec({ containers: [{ name: 'a', ports: [{ containerPort: 80, hostPort: 8080 }] }] }),
    expectReason: 'hostPort',
    expectDetail: 'container "a" uses hostPort 8080',
  },
]);

table('privileged', checks.privileged_1_0, [
  {
    name: 'multiple containers',
    pod: spec({
      containers: [
        { name: 'a' },
        { name: 'b', securityContext: {} },
        { name: 'c', securityContext: { privileged: false } },
        { name: 'd', securityContext: { privileged: true } },
        { name: 'e', securityContext: { privileged: true } },
      ],
    }),
    expectReason: 'privileged',
    expectDetail: 'containers "d", "e" must not set securityContext.privileged=true',
  },
]);

table('procMount', checks.procMount_1_0, [
  {
    name: 'procMount',
    pod: spec({
      containers: [
        { name: 'a' },
        { name: 'b', securityContext: {} },
        { name: 'c', securityContext: { procMount: 'Default' } },
        { name: 'd', securityContext: { procMount: 'Unmasked' } },
        { name: 'e', securityContext: { procMount: 'other' } },
      ],
    }),
    expectReason: 'procMount',
    expectDetail: 'containers "d", "e" must not set securityContext.procMount to "Unmasked", "other"',
  },
]);

table('windowsHostProcess', checks.windowsHostProcess_1_0, [
  {
    name: 'host process pod and containers',
    pod: spec({
      securityContext: { windowsOptions: { hostProcess: true } },
      containers: [
        { name: 'a' },
        { name: 'b', securityContext: {} },
        { name: 'c', securityContext: { windowsOptions: {} } },
        { name: 'd', securityContext: { windowsOptions: { hostProcess: false } } },
        { name: 'e', securityContext: { windowsOptions: { hostProcess: true } } },
        { name: 'f', securityContext: { windowsOptions: { hostProcess: true } } },
      ],
    }),
    expectReason: 'hostProcess',
    expectDetail: 'pod and containers "e", "f" must not set securityContext.windowsOptions.hostProcess=true',
  },
  {
    name: 'host process pod',
    pod: spec({ securityContext: { windowsOptions: { hostProcess: true } }, containers: [{ name: 'a' }] }),
    expectReason: 'hostProcess',
    expectDetail: 'pod must not set securityContext.windowsOptions.hostProcess=true',
  },
  {
    name: 'host process container',
    pod: spec({ containers: [{ name: 'a', securityContext: { windowsOptions: { hostProcess: true } } }] }),
    expectReason: 'hostProcess',
    expectDetail: 'container "a" must not set securityContext.windowsOptions.hostProcess=true',
  },
]);

// ---- the evaluator ------------------------------------------------------------------------------------------

const evaluator = newEvaluator(checks.defaultChecks());
const evaluate = (level: Level, version = latestVersion, pod: Pod = spec({ containers: [{ name: 'c' }] })) =>
  aggregateCheckResults(evaluator.evaluatePod({ level, version }, pod.metadata ?? {}, pod.spec ?? { containers: [] }));

test('privileged evaluates nothing', () => {
  assert.deepEqual(evaluator.evaluatePod({ level: Level.Privileged, version: latestVersion }, {}, { hostNetwork: true, containers: [] }), []);
});

test('restricted runs the baseline checks (by ID) then the restricted checks (by ID), in upstream message order', () => {
  const r = evaluate(Level.Restricted);
  assert.equal(
    forbiddenDetail(r),
    'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
  );
  const everything = spec({
    hostNetwork: true,
    volumes: [{ name: 'v', hostPath: { path: '/' } }],
    containers: [{ name: 'c', ports: [{ containerPort: 80, hostPort: 80 }], securityContext: { privileged: true, capabilities: { add: ['SYS_ADMIN'] }, seccompProfile: { type: 'Unconfined' } } }],
  });
  assert.equal(forbiddenReason(evaluate(Level.Baseline, latestVersion, everything)), 'non-default capabilities, host namespaces, hostPath volumes, hostPort, privileged, seccompProfile');
  // restricted replaces capabilities_baseline, hostPathVolumes and seccompProfile_baseline by its own checks.
  assert.equal(
    forbiddenReason(evaluate(Level.Restricted, latestVersion, everything)),
    'host namespaces, hostPort, privileged, allowPrivilegeEscalation != false, unrestricted capabilities, restricted volume types, runAsNonRoot != true, seccompProfile',
  );
});

test('a compliant restricted pod passes every level', () => {
  const pod = spec({
    securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
    containers: [{ name: 'c', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }],
  });
  assert.equal(evaluate(Level.Restricted, latestVersion, pod).allowed, true);
  assert.equal(evaluate(Level.Baseline, latestVersion, pod).allowed, true);
});

test('versions: checks apply from their minimum version; newer versions and latest use the newest set', () => {
  const pod = spec({ containers: [{ name: 'c' }] });
  // 1.0 has only runAsNonRoot of the restricted checks that this pod violates.
  assert.equal(forbiddenReason(evaluate(Level.Restricted, minorVersion(0), pod)), 'runAsNonRoot != true');
  assert.equal(forbiddenReason(evaluate(Level.Restricted, minorVersion(8), pod)), 'allowPrivilegeEscalation != false, runAsNonRoot != true');
  assert.equal(forbiddenReason(evaluate(Level.Restricted, minorVersion(19), pod)), 'allowPrivilegeEscalation != false, runAsNonRoot != true, seccompProfile');
  assert.equal(forbiddenReason(evaluate(Level.Restricted, minorVersion(22), pod)), 'allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile');
  assert.equal(forbiddenReason(evaluate(Level.Restricted, minorVersion(99), pod)), forbiddenReason(evaluate(Level.Restricted, latestVersion, pod)));
  const sysctl = spec({ securityContext: { sysctls: [{ name: 'net.ipv4.tcp_rmem', value: '4096 87380 16777216' }] } });
  assert.equal(evaluate(Level.Baseline, minorVersion(31), sysctl).allowed, false);
  assert.equal(evaluate(Level.Baseline, minorVersion(32), sysctl).allowed, true);
  assert.equal(evaluate(Level.Baseline, latestVersion, sysctl).allowed, true);
});

test('windows pods: restricted from 1.25 skips the Linux-only checks but keeps runAsNonRoot and runAsUser', () => {
  const windows = spec({ os: { name: 'windows' }, containers: [{ name: 'iis', securityContext: { runAsUser: 0 } }] });
  assert.equal(
    forbiddenDetail(evaluate(Level.Restricted, latestVersion, windows)),
    'runAsNonRoot != true (pod or container "iis" must set securityContext.runAsNonRoot=true), runAsUser=0 (container "iis" must not set runAsUser=0)',
  );
  assert.equal(forbiddenReason(evaluate(Level.Restricted, minorVersion(24), windows)), 'allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, runAsUser=0, seccompProfile');
  const compliant = spec({ os: { name: 'windows' }, securityContext: { runAsNonRoot: true, windowsOptions: { runAsUserName: 'ContainerUser' } }, containers: [{ name: 'iis' }] });
  assert.equal(evaluate(Level.Restricted, latestVersion, compliant).allowed, true);
  // hostProcess stays forbidden at baseline.
  const hostProcess = spec({ os: { name: 'windows' }, hostNetwork: true, securityContext: { windowsOptions: { hostProcess: true } }, containers: [{ name: 'c' }] });
  assert.equal(
    forbiddenDetail(evaluate(Level.Baseline, latestVersion, hostProcess)),
    'host namespaces (hostNetwork=true), hostProcess (pod must not set securityContext.windowsOptions.hostProcess=true)',
  );
});

test('checks are validated: duplicate IDs, latest and non-increasing versions are refused', () => {
  const fn: CheckPodFn = () => ({ allowed: true });
  assert.throws(() => newEvaluator([{ id: 'x', level: Level.Baseline, versions: [{ minimumVersion: minorVersion(0), checkPod: fn }] }, { id: 'x', level: Level.Baseline, versions: [{ minimumVersion: minorVersion(0), checkPod: fn }] }]), /multiple checks registered for ID x/);
  assert.throws(() => newEvaluator([{ id: 'x', level: Level.Baseline, versions: [{ minimumVersion: latestVersion, checkPod: fn }] }]), /cannot be 'latest'/);
  assert.throws(() => newEvaluator([{ id: 'x', level: Level.Baseline, versions: [{ minimumVersion: minorVersion(2), checkPod: fn }, { minimumVersion: minorVersion(2), checkPod: fn }] }]), /strictly increasing/);
});

test('aggregate: a check without a reason reads "unknown forbidden reason"', () => {
  const r = aggregateCheckResults([{ allowed: false }, { allowed: true }, { allowed: false, forbiddenReason: 'x', forbiddenDetail: 'y' }]);
  assert.equal(forbiddenReason(r), 'unknown forbidden reason, x');
  assert.equal(forbiddenDetail(r), 'unknown forbidden reason, x (y)');
});
