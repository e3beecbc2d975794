/**
 * The Pod Security Standards checks of Kubernetes 1.32 (`k8s.io/pod-security-admission/policy/check_*.go`), each
 * with its upstream ID, level, versions and messages. Baseline checks come first, then restricted ones.
 *
 * Windows: from policy version 1.25 the restricted allowPrivilegeEscalation, capabilities and seccompProfile
 * checks admit pods with `spec.os.name: windows` (those fields are Linux-only and API validation forbids them on
 * Windows pods); runAsNonRoot and runAsUser still apply.
 */
import type { SELinuxOptions } from 'kubernetes-types/core/v1.js';
import { Level, minorVersion } from './_api.js';
import { allowed, isWindowsPod, joinQuote, pluralize, sortedSet, visitContainers, type Check, type CheckPodFn, type CheckResult } from './_policy.js';

const v = minorVersion;
const forbidden = (forbiddenReason: string, forbiddenDetail: string): CheckResult => ({ allowed: false, forbiddenReason, forbiddenDetail });
/** `container "a"` / `containers "a", "b"`. */
const containers = (names: readonly string[]): string => `${pluralize('container', 'containers', names.length)} ${joinQuote(names)}`;

// ---- baseline -------------------------------------------------------------------------------------------

export const checkWindowsHostProcessID = 'windowsHostProcess';
/** Pod and containers must not set `securityContext.windowsOptions.hostProcess` to true. */
export const windowsHostProcess_1_0: CheckPodFn = (_m, spec) => {
  const bad: string[] = [];
  visitContainers(spec, (c) => {
    if (c.securityContext?.windowsOptions?.hostProcess === true) bad.push(c.name);
  });
  const setters: string[] = [];
  if (spec.securityContext?.windowsOptions?.hostProcess === true) setters.push('pod');
  if (bad.length > 0) setters.push(containers(bad));
  if (setters.length === 0) return allowed;
  return forbidden('hostProcess', `${setters.join(' and ')} must not set securityContext.windowsOptions.hostProcess=true`);
};

export const checkHostNamespacesID = 'hostNamespaces';
/** Sharing the host network, PID or IPC namespace is forbidden. */
export const hostNamespaces_1_0: CheckPodFn = (_m, spec) => {
  const host: string[] = [];
  if (spec.hostNetwork === true) host.push('hostNetwork=true');
  if (spec.hostPID === true) host.push('hostPID=true');
  if (spec.hostIPC === true) host.push('hostIPC=true');
  return host.length === 0 ? allowed : forbidden('host namespaces', host.join(', '));
};

export const checkPrivilegedID = 'privileged';
/** Privileged containers are forbidden. */
export const privileged_1_0: CheckPodFn = (_m, spec) => {
  const bad: string[] = [];
  visitContainers(spec, (c) => {
    if (c.securityContext?.privileged === true) bad.push(c.name);
  });
  return bad.length === 0 ? allowed : forbidden('privileged', `${containers(bad)} must not set securityContext.privileged=true`);
};

export const checkCapabilitiesBaselineID = 'capabilities_baseline';
const capabilitiesAllowed_1_0 = new Set([
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
]);
/** Adding capabilities beyond the container runtime's default set is forbidden. */
export const capabilitiesBaseline_1_0: CheckPodFn = (_m, spec) => {
  const bad: string[] = [];
  const caps: string[] = [];
  visitContainers(spec, (c) => {
    let valid = true;
    for (const cap of c.securityContext?.capabilities?.add ?? []) {
      if (!capabilitiesAllowed_1_0.has(cap)) {
        valid = false;
        caps.push(cap);
      }
    }
    if (!valid) bad.push(c.name);
  });
  if (bad.length === 0) return allowed;
  return forbidden('non-default capabilities', `${containers(bad)} must not include ${joinQuote(sortedSet(caps))} in securityContext.capabilities.add`);
};

export const checkHostPathVolumesID = 'hostPathVolumes';
/** hostPath volumes are forbidden. */
export const hostPathVolumes_1_0: CheckPodFn = (_m, spec) => {
  const bad = (spec.volumes ?? []).filter((vol) => vol.hostPath != null).map((vol) => vol.name);
  return bad.length === 0 ? allowed : forbidden('hostPath volumes', `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)}`);
};

export const checkHostPortsID = 'hostPorts';
/** Host ports are forbidden. */
export const hostPorts_1_0: CheckPodFn = (_m, spec) => {
  const bad: string[] = [];
  const ports: string[] = [];
  visitContainers(spec, (c) => {
    let valid = true;
    for (const p of c.ports ?? []) {
      if (p.hostPort !== undefined && p.hostPort !== 0) {
        valid = false;
        ports.push(String(p.hostPort));
      }
    }
    if (!valid) bad.push(c.name);
  });
  if (bad.length === 0) return allowed;
  const hostPorts = sortedSet(ports);
  return forbidden(
    'hostPort',
    `${containers(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('hostPort', 'hostPorts', hostPorts.length)} ${hostPorts.join(', ')}`,
  );
};

export const checkAppArmorProfileID = 'appArmorProfile';
const appArmorContainerAnnotationPrefix = 'container.apparmor.security.beta.kubernetes.io/';
const allowedAppArmorAnnotation = (profile: string): boolean => profile === '' || profile === 'runtime/default' || profile.startsWith('localhost/');
const allowedAppArmorType = (t: string): boolean => t === 'RuntimeDefault' || t === 'Localhost';
/** AppArmor may not be disabled or overridden beyond runtime/default and localhost profiles (fields and the beta annotations). */
export const appArmorProfile_1_0: CheckPodFn = (meta, spec) => {
  const setters: string[] = [];
  const badValues: string[] = [];
  const podType = spec.securityContext?.appArmorProfile?.type;
  if (spec.securityContext?.appArmorProfile != null && !allowedAppArmorType(podType ?? '')) {
    setters.push('pod');
    badValues.push(podType ?? '');
  }
  const bad: string[] = [];
  visitContainers(spec, (c) => {
    const p = c.securityContext?.appArmorProfile;
    if (p != null && !allowedAppArmorType(p.type ?? '')) {
      bad.push(c.name);
      badValues.push(p.type ?? '');
    }
  });
  if (bad.length > 0) setters.push(containers(bad));
  const annotations: string[] = [];
  for (const [k, val] of Object.entries(meta.annotations ?? {})) {
    if (k.startsWith(appArmorContainerAnnotationPrefix) && !allowedAppArmorAnnotation(val)) annotations.push(`${k}=${JSON.stringify(val)}`);
  }
  const values = sortedSet(badValues);
  if (annotations.length > 0) {
    annotations.sort();
    values.push(...annotations);
    setters.push(pluralize('annotation', 'annotations', annotations.length));
  }
  if (setters.length === 0) return allowed;
  return forbidden(
    pluralize('forbidden AppArmor profile', 'forbidden AppArmor profiles', values.length),
    `${setters.join(' and ')} must not set AppArmor profile type to ${joinQuote(values)}`,
  );
};

export const checkSELinuxOptionsID = 'seLinuxOptions';
const selinuxAllowedTypes_1_0 = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t']);
const selinuxAllowedTypes_1_31 = new Set([...selinuxAllowedTypes_1_0, 'container_engine_t']);
/** SELinux user and role may not be set; the type only to the container types. */
function seLinuxOptions(allowedTypes: ReadonlySet<string>): CheckPodFn {
  return (_m, spec) => {
    const setters: string[] = [];
    const badTypes: string[] = [];
    let setUser = false;
    let setRole = false;
    const valid = (o: SELinuxOptions): boolean => {
      let ok = true;
      if (!allowedTypes.has(o.type ?? '')) {
        ok = false;
        badTypes.push(o.type ?? '');
      }
      if ((o.user ?? '') !== '') {
        ok = false;
        setUser = true;
      }
      if ((o.role ?? '') !== '') {
        ok = false;
        setRole = true;
      }
      return ok;
    };
    const podOpts = spec.securityContext?.seLinuxOptions;
    if (podOpts != null && !valid(podOpts)) setters.push('pod');
    const bad: string[] = [];
    visitContainers(spec, (c) => {
      const o = c.securityContext?.seLinuxOptions;
      if (o != null && !valid(o)) bad.push(c.name);
    });
    if (bad.length > 0) setters.push(containers(bad));
    if (setters.length === 0) return allowed;
    const data: string[] = [];
    const types = sortedSet(badTypes);
    if (types.length > 0) data.push(`${pluralize('type', 'types', types.length)} ${joinQuote(types)}`);
    if (setUser) data.push('user may not be set');
    if (setRole) data.push('role may not be set');
    return forbidden('seLinuxOptions', `${setters.join(' and ')} set forbidden securityContext.seLinuxOptions: ${data.join('; ')}`);
  };
}
export const seLinuxOptions_1_0 = seLinuxOptions(selinuxAllowedTypes_1_0);
export const seLinuxOptions_1_31 = seLinuxOptions(selinuxAllowedTypes_1_31);

export const checkProcMountID = 'procMount';
/** The default /proc masks are required. */
export const procMount_1_0: CheckPodFn = (_m, spec) => {
  const bad: string[] = [];
  const types: string[] = [];
  visitContainers(spec, (c) => {
    const pm = c.securityContext?.procMount;
    if (pm != null && pm !== 'Default') {
      bad.push(c.name);
      types.push(pm);
    }
  });
  if (bad.length === 0) return allowed;
  return forbidden('procMount', `${containers(bad)} must not set securityContext.procMount to ${joinQuote(sortedSet(types))}`);
};

export const checkSeccompBaselineID = 'seccompProfile_baseline';
const seccompPodAnnotation = 'seccomp.security.alpha.kubernetes.io/pod';
const seccompContainerAnnotationPrefix = 'container.seccomp.security.alpha.kubernetes.io/';
const validSeccomp = (t: string | undefined): boolean => t === 'Localhost' || t === 'RuntimeDefault';
const validSeccompAnnotation = (val: string): boolean => val === 'runtime/default' || val === 'docker/default' || val.startsWith('localhost/');
/** Before 1.19: the seccomp alpha annotations may only name runtime/default, docker/default or localhost profiles. */
export const seccompProfileBaseline_1_0: CheckPodFn = (meta, spec) => {
  const annotations = meta.annotations ?? {};
  const bad: string[] = [];
  const podVal = annotations[seccompPodAnnotation];
  if (podVal !== undefined && !validSeccompAnnotation(podVal)) bad.push(`${seccompPodAnnotation}=${JSON.stringify(podVal)}`);
  visitContainers(spec, (c) => {
    const key = seccompContainerAnnotationPrefix + c.name;
    const val = annotations[key];
    if (val !== undefined && !validSeccompAnnotation(val)) bad.push(`${key}=${JSON.stringify(val)}`);
  });
  const list = sortedSet(bad);
  if (list.length === 0) return allowed;
  return forbidden('seccompProfile', `forbidden ${pluralize('annotation', 'annotations', list.length)} ${list.join(', ')}`);
};
/** 1.19+: a seccompProfile, where set, must be RuntimeDefault or Localhost. */
export const seccompProfileBaseline_1_19: CheckPodFn = (_m, spec) => {
  const setters: string[] = [];
  const badValues: string[] = [];
  const podProfile = spec.securityContext?.seccompProfile;
  if (podProfile != null && !validSeccomp(podProfile.type)) {
    setters.push('pod');
    badValues.push(podProfile.type ?? '');
  }
  const bad: string[] = [];
  visitContainers(spec, (c) => {
    const p = c.securityContext?.seccompProfile;
    if (p != null && !validSeccomp(p.type)) {
      bad.push(c.name);
      badValues.push(p.type ?? '');
    }
  });
  if (bad.length > 0) setters.push(containers(bad));
  if (setters.length === 0) return allowed;
  return forbidden('seccompProfile', `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sortedSet(badValues))}`);
};

export const checkSysctlsID = 'sysctls';
const sysctlsAllowed_1_0 = ['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_unprivileged_port_start'];
const sysctlsAllowed_1_27 = [...sysctlsAllowed_1_0, 'net.ipv4.ip_local_reserved_ports'];
const sysctlsAllowed_1_29 = [...sysctlsAllowed_1_27, 'net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes'];
const sysctlsAllowed_1_32 = [...sysctlsAllowed_1_29, 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem'];
/** Only the namespaced, node-isolated "safe" sysctls are allowed. */
function sysctls(allowedNames: readonly string[]): CheckPodFn {
  const ok = new Set(allowedNames);
  return (_m, spec) => {
    const bad = (spec.securityContext?.sysctls ?? []).map((s) => s.name).filter((n) => !ok.has(n));
    return bad.length === 0 ? allowed : forbidden('forbidden sysctls', bad.join(', '));
  };
}
export const sysctls_1_0 = sysctls(sysctlsAllowed_1_0);
export const sysctls_1_27 = sysctls(sysctlsAllowed_1_27);
export const sysctls_1_29 = sysctls(sysctlsAllowed_1_29);
export const sysctls_1_32 = sysctls(sysctlsAllowed_1_32);

// ---- restricted -----------------------------------------------------------------------------------------

export const checkRestrictedVolumesID = 'restrictedVolumes';
const allowedVolumeSources = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'image', 'persistentVolumeClaim', 'projected', 'secret'] as const;
const restrictedVolumeSources = [
  'hostPath',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'gitRepo',
  'nfs',
  'iscsi',
  'glusterfs',
  'rbd',
  'flexVolume',
  'cinder',
  'cephfs',
  'flocker',
  'fc',
  'azureFile',
  'vsphereVolume',
  'quobyte',
  'azureDisk',
  'photonPersistentDisk',
  'portworxVolume',
  'scaleIO',
  'storageos',
] as const;
/** Only configMap, csi, downwardAPI, emptyDir, ephemeral, image, persistentVolumeClaim, projected and secret volumes. */
export const restrictedVolumes_1_0: CheckPodFn = (_m, spec) => {
  const bad: string[] = [];
  const types: string[] = [];
  for (const vol of spec.volumes ?? []) {
    const src = vol as unknown as Record<string, unknown>;
    if (allowedVolumeSources.some((k) => src[k] != null)) continue;
    bad.push(vol.name);
    types.push(restrictedVolumeSources.find((k) => src[k] != null) ?? 'unknown');
  }
  if (bad.length === 0) return allowed;
  const badTypes = sortedSet(types);
  return forbidden(
    'restricted volume types',
    `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('restricted volume type', 'restricted volume types', badTypes.length)} ${joinQuote(badTypes)}`,
  );
};

export const checkAllowPrivilegeEscalationID = 'allowPrivilegeEscalation';
/** Containers must set `allowPrivilegeEscalation: false`. */
export const allowPrivilegeEscalation_1_8: CheckPodFn = (_m, spec) => {
  const bad: string[] = [];
  visitContainers(spec, (c) => {
    if (c.securityContext?.allowPrivilegeEscalation !== false) bad.push(c.name);
  });
  return bad.length === 0 ? allowed : forbidden('allowPrivilegeEscalation != false', `${containers(bad)} must set securityContext.allowPrivilegeEscalation=false`);
};
export const allowPrivilegeEscalation_1_25: CheckPodFn = (m, spec) => (isWindowsPod(spec) ? allowed : allowPrivilegeEscalation_1_8(m, spec));

export const checkRunAsNonRootID = 'runAsNonRoot';
/** Containers must run as non-root: `runAsNonRoot: true` on the pod or on every container, never false. */
export const runAsNonRoot_1_0: CheckPodFn = (_m, spec) => {
  const setters: string[] = [];
  let podRunAsNonRoot = false;
  const podValue = spec.securityContext?.runAsNonRoot;
  if (podValue === false) setters.push('pod');
  else if (podValue === true) podRunAsNonRoot = true;
  const explicit: string[] = [];
  const implicit: string[] = [];
  visitContainers(spec, (c) => {
    const value = c.securityContext?.runAsNonRoot;
    if (value != null) {
      if (!value) explicit.push(c.name);
    } else if (!podRunAsNonRoot) {
      implicit.push(c.name);
    }
  });
  if (explicit.length > 0) setters.push(containers(explicit));
  if (setters.length > 0) return forbidden('runAsNonRoot != true', `${setters.join(' and ')} must not set securityContext.runAsNonRoot=false`);
  if (implicit.length > 0) return forbidden('runAsNonRoot != true', `pod or ${containers(implicit)} must set securityContext.runAsNonRoot=true`);
  return allowed;
};

export const checkRunAsUserID = 'runAsUser';
/** `runAsUser: 0` is forbidden on the pod and on containers. */
export const runAsUser_1_23: CheckPodFn = (_m, spec) => {
  const setters: string[] = [];
  if (spec.securityContext?.runAsUser === 0) setters.push('pod');
  const bad: string[] = [];
  visitContainers(spec, (c) => {
    if (c.securityContext?.runAsUser === 0) bad.push(c.name);
  });
  if (bad.length > 0) setters.push(containers(bad));
  return setters.length === 0 ? allowed : forbidden('runAsUser=0', `${setters.join(' and ')} must not set runAsUser=0`);
};

export const checkSeccompProfileRestrictedID = 'seccompProfile_restricted';
/** A seccompProfile of RuntimeDefault or Localhost is required, on the pod or on every container. */
export const seccompProfileRestricted_1_19: CheckPodFn = (_m, spec) => {
  const setters: string[] = [];
  const badValues: string[] = [];
  let podSet = false;
  const podProfile = spec.securityContext?.seccompProfile;
  if (podProfile != null) {
    if (!validSeccomp(podProfile.type)) {
      setters.push('pod');
      badValues.push(podProfile.type ?? '');
    } else {
      podSet = true;
    }
  }
  const explicit: string[] = [];
  const implicit: string[] = [];
  visitContainers(spec, (c) => {
    const p = c.securityContext?.seccompProfile;
    if (p != null) {
      if (!validSeccomp(p.type)) {
        explicit.push(c.name);
        badValues.push(p.type ?? '');
      }
    } else if (!podSet) {
      implicit.push(c.name);
    }
  });
  if (explicit.length > 0) setters.push(containers(explicit));
  if (setters.length > 0) {
    return forbidden('seccompProfile', `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sortedSet(badValues))}`);
  }
  if (implicit.length > 0) {
    return forbidden('seccompProfile', `pod or ${containers(implicit)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`);
  }
  return allowed;
};
export const seccompProfileRestricted_1_25: CheckPodFn = (m, spec) => (isWindowsPod(spec) ? allowed : seccompProfileRestricted_1_19(m, spec));

export const checkCapabilitiesRestrictedID = 'capabilities_restricted';
/** Containers must drop ALL capabilities and may add back only NET_BIND_SERVICE. */
export const capabilitiesRestricted_1_22: CheckPodFn = (_m, spec) => {
  const missingDropAll: string[] = [];
  const addingForbidden: string[] = [];
  const caps: string[] = [];
  visitContainers(spec, (c) => {
    const capabilities = c.securityContext?.capabilities;
    if (capabilities == null) {
      missingDropAll.push(c.name);
      return;
    }
    if (!(capabilities.drop ?? []).includes('ALL')) missingDropAll.push(c.name);
    let added = false;
    for (const cap of capabilities.add ?? []) {
      if (cap !== 'NET_BIND_SERVICE') {
        added = true;
        caps.push(cap);
      }
    }
    if (added) addingForbidden.push(c.name);
  });
  const details: string[] = [];
  if (missingDropAll.length > 0) details.push(`${containers(missingDropAll)} must set securityContext.capabilities.drop=["ALL"]`);
  if (addingForbidden.length > 0) details.push(`${containers(addingForbidden)} must not include ${joinQuote(sortedSet(caps))} in securityContext.capabilities.add`);
  return details.length === 0 ? allowed : forbidden('unrestricted capabilities', details.join('; '));
};
export const capabilitiesRestricted_1_25: CheckPodFn = (m, spec) => (isWindowsPod(spec) ? allowed : capabilitiesRestricted_1_22(m, spec));

/** Every check of policy version 1.32 (`policy.DefaultChecks()`). */
export function defaultChecks(): Check[] {
  const B = Level.Baseline;
  const R = Level.Restricted;
  return [
    { id: checkAppArmorProfileID, level: B, versions: [{ minimumVersion: v(0), checkPod: appArmorProfile_1_0 }] },
    { id: checkCapabilitiesBaselineID, level: B, versions: [{ minimumVersion: v(0), checkPod: capabilitiesBaseline_1_0 }] },
    { id: checkHostNamespacesID, level: B, versions: [{ minimumVersion: v(0), checkPod: hostNamespaces_1_0 }] },
    { id: checkHostPathVolumesID, level: B, versions: [{ minimumVersion: v(0), checkPod: hostPathVolumes_1_0 }] },
    { id: checkHostPortsID, level: B, versions: [{ minimumVersion: v(0), checkPod: hostPorts_1_0 }] },
    { id: checkPrivilegedID, level: B, versions: [{ minimumVersion: v(0), checkPod: privileged_1_0 }] },
    { id: checkProcMountID, level: B, versions: [{ minimumVersion: v(0), checkPod: procMount_1_0 }] },
    {
      id: checkSELinuxOptionsID,
      level: B,
      versions: [
        { minimumVersion: v(0), checkPod: seLinuxOptions_1_0 },
        { minimumVersion: v(31), checkPod: seLinuxOptions_1_31 },
      ],
    },
    {
      id: checkSeccompBaselineID,
      level: B,
      versions: [
        { minimumVersion: v(0), checkPod: seccompProfileBaseline_1_0 },
        { minimumVersion: v(19), checkPod: seccompProfileBaseline_1_19 },
      ],
    },
    {
      id: checkSysctlsID,
      level: B,
      versions: [
        { minimumVersion: v(0), checkPod: sysctls_1_0 },
        { minimumVersion: v(27), checkPod: sysctls_1_27 },
        { minimumVersion: v(29), checkPod: sysctls_1_29 },
        { minimumVersion: v(32), checkPod: sysctls_1_32 },
      ],
    },
    { id: checkWindowsHostProcessID, level: B, versions: [{ minimumVersion: v(0), checkPod: windowsHostProcess_1_0 }] },
    {
      id: checkAllowPrivilegeEscalationID,
      level: R,
      versions: [
        { minimumVersion: v(8), checkPod: allowPrivilegeEscalation_1_8 },
        { minimumVersion: v(25), checkPod: allowPrivilegeEscalation_1_25 },
      ],
    },
    {
      id: checkCapabilitiesRestrictedID,
      level: R,
      versions: [
        { minimumVersion: v(22), checkPod: capabilitiesRestricted_1_22, overrideCheckIDs: [checkCapabilitiesBaselineID] },
        { minimumVersion: v(25), checkPod: capabilitiesRestricted_1_25, overrideCheckIDs: [checkCapabilitiesBaselineID] },
      ],
    },
    { id: checkRestrictedVolumesID, level: R, versions: [{ minimumVersion: v(0), checkPod: restrictedVolumes_1_0, overrideCheckIDs: [checkHostPathVolumesID] }] },
    { id: checkRunAsNonRootID, level: R, versions: [{ minimumVersion: v(0), checkPod: runAsNonRoot_1_0 }] },
    { id: checkRunAsUserID, level: R, versions: [{ minimumVersion: v(23), checkPod: runAsUser_1_23 }] },
    {
      id: checkSeccompProfileRestrictedID,
      level: R,
      versions: [
        { minimumVersion: v(19), checkPod: seccompProfileRestricted_1_19, overrideCheckIDs: [checkSeccompBaselineID] },
        { minimumVersion: v(25), checkPod: seccompProfileRestricted_1_25, overrideCheckIDs: [checkSeccompBaselineID] },
      ],
    },
  ];
}
