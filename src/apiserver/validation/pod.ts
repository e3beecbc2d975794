/**
 * Pods and pod specs as `pkg/apis/core/validation` (v1.32) checks them: `ValidatePodCreate`,
 * `ValidatePodSpec`, `ValidatePodTemplateSpec`, `ValidatePodUpdate`, `ValidatePodStatusUpdate`, and the
 * OS rules of `validateOS`/`validateLinux`/`validateWindows`/`validateWindowsHostProcessPod`.
 */
import type { Container, ContainerPort, EnvVar, Pod, PodSpec, PodTemplateSpec, Probe, Volume, VolumeMount } from 'kubernetes-types/core/v1.js';
import { type FieldError, fieldErrors, GoValue, Path } from '../../api/field-errors.js';
import { inclusiveRangeError, isDNS1123Label, isEnvVarName, isValidPortName, isValidPortNum, nameIsDNSSubdomain } from './_names.js';
import { semanticDeepEqual, validateAnnotations, validateLabels, validateNonnegativeField, validateObjectMeta, validateObjectMetaUpdate, validateQualifiedName } from './objectmeta.js';
import { validateResourceList, validateResourceRequirements } from './resources.js';
import { validateAffinity, validateOnlyAddedTolerations, validateTolerations, validateTopologySpreadConstraints } from './scheduling.js';

/** 1.31+/1.32 pod fields that kubernetes-types 1.30 lacks. */
export type PodSecurityContextExt = NonNullable<PodSpec['securityContext']> & { supplementalGroupsPolicy?: string; seLinuxChangePolicy?: string };

const mirrorPodAnnotationKey = 'kubernetes.io/config.mirror';
const maxInt32 = 2147483647;
const supportedPortProtocols = ['SCTP', 'TCP', 'UDP'];

export interface PodSpecOptions {
  /** Names of volumes provided outside `spec.volumes` (StatefulSet volumeClaimTemplates). */
  extraVolumes?: readonly string[];
  /** `--allow-privileged` of kube-apiserver (kubeadm and managed clusters set true). Default true. */
  allowPrivileged?: boolean;
}

function validateDNS1123Label(value: string, path: Path): FieldError[] {
  return isDNS1123Label(value).map((m) => fieldErrors.invalid(path, value, m));
}

/** Containers of a pod spec with their paths, in upstream's `VisitContainersWithPath` order. */
export function containersWithPaths(spec: PodSpec, path: Path): { c: Container; p: Path }[] {
  const out: { c: Container; p: Path }[] = [];
  (spec.initContainers ?? []).forEach((c, i) => out.push({ c, p: path.child('initContainers').index(i) }));
  spec.containers.forEach((c, i) => out.push({ c, p: path.child('containers').index(i) }));
  (spec.ephemeralContainers ?? []).forEach((c, i) => out.push({ c: c, p: path.child('ephemeralContainers').index(i) }));
  return out;
}

function volumeSourceKeys(v: Volume): string[] {
  return Object.keys(v).filter((k) => k !== 'name' && (v as unknown as Record<string, unknown>)[k] !== undefined);
}

function validateVolumes(volumes: readonly Volume[] | undefined, path: Path): { names: Set<string>; errs: FieldError[] } {
  const names = new Set<string>();
  const errs: FieldError[] = [];
  (volumes ?? []).forEach((v, i) => {
    const p = path.index(i);
    const namePath = p.child('name');
    const sources = volumeSourceKeys(v);
    const srcErrs: FieldError[] = [];
    if (sources.length === 0) srcErrs.push(fieldErrors.required(p, 'must specify a volume type'));
    else if (sources.length > 1) srcErrs.push(fieldErrors.forbidden(p.child(sources[1] ?? ''), 'may not specify more than 1 volume type'));
    srcErrs.push(...validateVolumeSourceFields(v, p));
    if ((v.name ?? '') === '') errs.push(fieldErrors.required(namePath, ''));
    else errs.push(...validateDNS1123Label(v.name, namePath));
    if (names.has(v.name)) errs.push(fieldErrors.duplicate(namePath, v.name));
    if (srcErrs.length === 0) names.add(v.name);
    else errs.push(...srcErrs);
  });
  return { names, errs };
}

function validateDefaultMode(mode: number | undefined, path: Path): FieldError[] {
  if (mode === undefined || (mode >= 0 && mode <= 0o777)) return [];
  return [fieldErrors.invalid(path, mode, 'must be a number between 0 and 0777 (octal), both inclusive')];
}

const hostPathTypes = ['', 'DirectoryOrCreate', 'Directory', 'FileOrCreate', 'File', 'Socket', 'CharDevice', 'BlockDevice'];

/** The required fields of the common volume sources (`validateHostPathVolumeSource`, ...). */
function validateVolumeSourceFields(v: Volume, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (v.hostPath !== undefined) {
    if ((v.hostPath.path ?? '') === '') errs.push(fieldErrors.required(p.child('hostPath').child('path'), ''));
    const t = v.hostPath.type ?? '';
    if (!hostPathTypes.includes(t)) errs.push(fieldErrors.notSupported(p.child('hostPath').child('type'), t, hostPathTypes));
  }
  if (v.secret !== undefined) {
    if ((v.secret.secretName ?? '') === '') errs.push(fieldErrors.required(p.child('secret').child('secretName'), ''));
    errs.push(...validateDefaultMode(v.secret.defaultMode, p.child('secret').child('defaultMode')));
  }
  if (v.configMap !== undefined) {
    if ((v.configMap.name ?? '') === '') errs.push(fieldErrors.required(p.child('configMap').child('name'), ''));
    errs.push(...validateDefaultMode(v.configMap.defaultMode, p.child('configMap').child('defaultMode')));
  }
  if (v.persistentVolumeClaim !== undefined && (v.persistentVolumeClaim.claimName ?? '') === '') {
    errs.push(fieldErrors.required(p.child('persistentVolumeClaim').child('claimName'), ''));
  }
  if (v.emptyDir?.medium !== undefined && !['', 'Memory', 'HugePages'].includes(v.emptyDir.medium) && !v.emptyDir.medium.startsWith('HugePages-')) {
    errs.push(fieldErrors.notSupported(p.child('emptyDir').child('medium'), v.emptyDir.medium, ['', 'Memory', 'HugePages']));
  }
  return errs;
}

const maxID = 2147483647;

function validateID(v: number | undefined, path: Path): FieldError[] {
  if (v === undefined || (v >= 0 && v <= maxID)) return [];
  return [fieldErrors.invalid(path, v, inclusiveRangeError(0, maxID))];
}

/** `ValidateSecurityContext` (container) and the ID ranges of the pod security context. */
function validateSecurityContexts(spec: PodSpec, path: Path, allowPrivileged: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const psc = spec.securityContext;
  const pp = path.child('securityContext');
  errs.push(...validateID(psc?.runAsUser, pp.child('runAsUser')));
  errs.push(...validateID(psc?.runAsGroup, pp.child('runAsGroup')));
  errs.push(...validateID(psc?.fsGroup, pp.child('fsGroup')));
  (psc?.supplementalGroups ?? []).forEach((g, i) => errs.push(...validateID(g, pp.child('supplementalGroups').index(i))));
  for (const { c, p } of containersWithPaths(spec, path)) {
    const sc = c.securityContext;
    if (sc === undefined) continue;
    const sp = p.child('securityContext');
    if (sc.privileged === true && !allowPrivileged) errs.push(fieldErrors.forbidden(sp.child('privileged'), 'disallowed by cluster policy'));
    errs.push(...validateID(sc.runAsUser, sp.child('runAsUser')));
    errs.push(...validateID(sc.runAsGroup, sp.child('runAsGroup')));
    if (sc.procMount !== undefined && sc.procMount !== 'Default' && sc.procMount !== 'Unmasked') {
      errs.push(fieldErrors.notSupported(sp.child('procMount'), sc.procMount, ['Default', 'Unmasked']));
    }
  }
  return errs;
}

/** `validatePodHostNetworkDeps`: with hostNetwork, container ports must equal their host ports. */
function validateHostNetworkPorts(spec: PodSpec, path: Path): FieldError[] {
  if (spec.hostNetwork !== true) return [];
  const errs: FieldError[] = [];
  for (const { c, p } of containersWithPaths(spec, path)) {
    (c.ports ?? []).forEach((port, i) => {
      if ((port.hostPort ?? 0) !== port.containerPort) {
        errs.push(fieldErrors.invalid(p.child('ports').index(i).child('containerPort'), port.containerPort, 'must match `hostPort` when `hostNetwork` is true'));
      }
    });
  }
  return errs;
}

function validateVolumeMounts(mounts: readonly VolumeMount[] | undefined, volumes: Set<string>, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const mountPoints = new Set<string>();
  (mounts ?? []).forEach((m, i) => {
    const p = path.index(i);
    if ((m.name ?? '') === '') errs.push(fieldErrors.required(p.child('name'), ''));
    if (!volumes.has(m.name)) errs.push(fieldErrors.notFound(p.child('name'), m.name));
    if ((m.mountPath ?? '') === '') errs.push(fieldErrors.required(p.child('mountPath'), ''));
    if (mountPoints.has(m.mountPath)) errs.push(fieldErrors.invalid(p.child('mountPath'), m.mountPath, 'must be unique'));
    mountPoints.add(m.mountPath);
  });
  return errs;
}

function validateContainerPorts(ports: readonly ContainerPort[] | undefined, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  (ports ?? []).forEach((port, i) => {
    const p = path.index(i);
    if ((port.name ?? '') !== '') {
      const msgs = isValidPortName(port.name ?? '');
      if (msgs.length > 0) for (const m of msgs) errs.push(fieldErrors.invalid(p.child('name'), port.name, m));
      else if (names.has(port.name ?? '')) errs.push(fieldErrors.duplicate(p.child('name'), port.name));
      else names.add(port.name ?? '');
    }
    if (port.containerPort === 0) errs.push(fieldErrors.required(p.child('containerPort'), ''));
    else for (const m of isValidPortNum(port.containerPort)) errs.push(fieldErrors.invalid(p.child('containerPort'), port.containerPort, m));
    if ((port.hostPort ?? 0) !== 0) for (const m of isValidPortNum(port.hostPort ?? 0)) errs.push(fieldErrors.invalid(p.child('hostPort'), port.hostPort, m));
    const proto = port.protocol ?? '';
    if (proto === '') errs.push(fieldErrors.required(p.child('protocol'), ''));
    else if (!supportedPortProtocols.includes(proto)) errs.push(fieldErrors.notSupported(p.child('protocol'), proto, supportedPortProtocols));
  });
  return errs;
}

/** `ValidateEnv`. */
export function validateEnv(vars: readonly EnvVar[] | undefined, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  (vars ?? []).forEach((ev, i) => {
    const p = path.index(i);
    if ((ev.name ?? '') === '') errs.push(fieldErrors.required(p.child('name'), ''));
    else for (const m of isEnvVarName(ev.name)) errs.push(fieldErrors.invalid(p.child('name'), ev.name, m));
    if (ev.valueFrom !== undefined) {
      const vf = ev.valueFrom;
      const n = [vf.fieldRef, vf.resourceFieldRef, vf.configMapKeyRef, vf.secretKeyRef].filter((x) => x !== undefined).length;
      const vp = p.child('valueFrom');
      if ((ev.value ?? '') !== '' && n !== 0) errs.push(fieldErrors.invalid(vp, '', 'may not be specified when `value` is not empty'));
      if (n === 0) errs.push(fieldErrors.invalid(vp, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'));
      else if (n > 1) errs.push(fieldErrors.invalid(vp, '', 'may not have more than one field specified at a time'));
    }
  });
  return errs;
}

function validateProbe(probe: Probe | undefined, path: Path, liveness: boolean): FieldError[] {
  if (probe === undefined) return [];
  const errs: FieldError[] = [];
  const handlers = [probe.exec, probe.httpGet, probe.tcpSocket, probe.grpc].filter((h) => h !== undefined).length;
  if (handlers === 0) errs.push(fieldErrors.required(path, 'must specify a handler type'));
  else if (handlers > 1) errs.push(fieldErrors.forbidden(path, 'may not specify more than 1 handler type'));
  for (const f of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold'] as const) {
    const v = probe[f];
    if (v !== undefined) errs.push(...validateNonnegativeField(v, path.child(f)));
  }
  if (liveness && probe.successThreshold !== undefined && probe.successThreshold !== 1) {
    errs.push(fieldErrors.invalid(path.child('successThreshold'), probe.successThreshold, 'must be 1'));
  }
  return errs;
}

function validateContainer(c: Container, volumes: Set<string>, path: Path, regular: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if ((c.name ?? '') === '') errs.push(fieldErrors.required(path.child('name'), ''));
  else errs.push(...validateDNS1123Label(c.name, path.child('name')));
  switch (c.terminationMessagePolicy ?? '') {
    case 'File':
    case 'FallbackToLogsOnError':
      break;
    case '':
      errs.push(fieldErrors.required(path.child('terminationMessagePolicy'), ''));
      break;
    default:
      errs.push(fieldErrors.notSupported(path.child('terminationMessagePolicy'), c.terminationMessagePolicy, ['File', 'FallbackToLogsOnError']));
  }
  errs.push(...validateContainerPorts(c.ports, path.child('ports')));
  errs.push(...validateEnv(c.env, path.child('env')));
  errs.push(...validateVolumeMounts(c.volumeMounts, volumes, path.child('volumeMounts')));
  switch (c.imagePullPolicy ?? '') {
    case 'Always':
    case 'IfNotPresent':
    case 'Never':
      break;
    case '':
      errs.push(fieldErrors.required(path.child('imagePullPolicy'), ''));
      break;
    default:
      errs.push(fieldErrors.notSupported(path.child('imagePullPolicy'), c.imagePullPolicy, ['Always', 'IfNotPresent', 'Never']));
  }
  errs.push(...validateResourceRequirements(c.resources, path.child('resources')));
  if (regular) {
    errs.push(...validateProbe(c.livenessProbe, path.child('livenessProbe'), true));
    errs.push(...validateProbe(c.readinessProbe, path.child('readinessProbe'), false));
    errs.push(...validateProbe(c.startupProbe, path.child('startupProbe'), true));
  }
  return errs;
}

function validateContainers(spec: PodSpec, volumes: Set<string>, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  const hostPorts = new Set<string>();
  const checkList = (list: readonly Container[], listPath: Path, regular: boolean): void => {
    list.forEach((c, i) => {
      const p = listPath.index(i);
      errs.push(...validateContainer(c, volumes, p, regular));
      if ((c.name ?? '') !== '' && names.has(c.name)) errs.push(fieldErrors.duplicate(p.child('name'), c.name));
      names.add(c.name);
      if (!regular && (c.readinessProbe !== undefined || c.livenessProbe !== undefined || c.startupProbe !== undefined) && c.restartPolicy !== 'Always') {
        const f = c.livenessProbe !== undefined ? 'livenessProbe' : c.readinessProbe !== undefined ? 'readinessProbe' : 'startupProbe';
        errs.push(fieldErrors.forbidden(p.child(f), 'may not be set for init containers without restartPolicy=Always'));
      }
      (c.ports ?? []).forEach((port, j) => {
        const hp = port.hostPort ?? 0;
        if (hp === 0) return;
        const key = `${port.hostIP ?? ''}/${hp}/${port.protocol ?? 'TCP'}`;
        if (hostPorts.has(key)) errs.push(fieldErrors.duplicate(p.child('ports').index(j).child('hostPort'), `${hp}/${port.protocol ?? 'TCP'}`));
        hostPorts.add(key);
      });
    });
  };
  checkList(spec.initContainers ?? [], path.child('initContainers'), false);
  if (spec.containers.length === 0) errs.push(fieldErrors.required(path.child('containers'), ''));
  checkList(spec.containers, path.child('containers'), true);
  return errs;
}

/** `validateOS`: `spec.os.name` must be `linux` or `windows`. */
export function validateOS(spec: PodSpec, path: Path): FieldError[] {
  const os = spec.os;
  if (os === undefined) return [];
  if ((os.name ?? '') === '') return [fieldErrors.required(path.child('name'), 'cannot be empty')];
  if (os.name !== 'linux' && os.name !== 'windows') return [fieldErrors.notSupported(path, os.name, ['linux', 'windows'])];
  return [];
}

/** `validateLinux`: Windows options are forbidden on a linux pod. */
export function validateLinux(spec: PodSpec, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (spec.securityContext?.windowsOptions !== undefined) {
    errs.push(fieldErrors.forbidden(path.child('securityContext').child('windowsOptions'), 'windows options cannot be set for a linux pod'));
  }
  for (const { c, p } of containersWithPaths(spec, path)) {
    if (c.securityContext?.windowsOptions !== undefined) {
      errs.push(fieldErrors.forbidden(p.child('securityContext').child('windowsOptions'), 'windows options cannot be set for a linux pod'));
    }
  }
  return errs;
}

/** `validateWindows`: Linux-only pod and container fields are forbidden on a windows pod. */
export function validateWindows(spec: PodSpec, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const msg = 'cannot be set for a windows pod';
  const sc = spec.securityContext as PodSecurityContextExt | undefined;
  const scPath = path.child('securityContext');
  if (sc?.appArmorProfile !== undefined) errs.push(fieldErrors.forbidden(scPath.child('appArmorProfile'), msg));
  if (sc?.seLinuxOptions !== undefined) errs.push(fieldErrors.forbidden(scPath.child('seLinuxOptions'), msg));
  if (spec.hostUsers !== undefined) errs.push(fieldErrors.forbidden(path.child('hostUsers'), msg));
  if (spec.hostPID === true) errs.push(fieldErrors.forbidden(path.child('hostPID'), msg));
  if (spec.hostIPC === true) errs.push(fieldErrors.forbidden(path.child('hostIPC'), msg));
  if (sc?.seccompProfile !== undefined) errs.push(fieldErrors.forbidden(scPath.child('seccompProfile'), msg));
  if (sc?.fsGroup !== undefined) errs.push(fieldErrors.forbidden(scPath.child('fsGroup'), msg));
  if (sc?.fsGroupChangePolicy !== undefined) errs.push(fieldErrors.forbidden(scPath.child('fsGroupChangePolicy'), msg));
  if ((sc?.sysctls ?? []).length > 0) errs.push(fieldErrors.forbidden(scPath.child('sysctls'), msg));
  if (spec.shareProcessNamespace !== undefined) errs.push(fieldErrors.forbidden(path.child('shareProcessNamespace'), msg));
  if (sc?.runAsUser !== undefined) errs.push(fieldErrors.forbidden(scPath.child('runAsUser'), msg));
  if (sc?.runAsGroup !== undefined) errs.push(fieldErrors.forbidden(scPath.child('runAsGroup'), msg));
  if (sc?.supplementalGroups !== undefined) errs.push(fieldErrors.forbidden(scPath.child('supplementalGroups'), msg));
  if (sc?.supplementalGroupsPolicy !== undefined) errs.push(fieldErrors.forbidden(scPath.child('supplementalGroupsPolicy'), msg));
  for (const { c, p } of containersWithPaths(spec, path)) {
    const csc = c.securityContext;
    if (csc === undefined) continue;
    const cp = p.child('securityContext');
    const fields = ['appArmorProfile', 'seLinuxOptions', 'seccompProfile', 'capabilities', 'readOnlyRootFilesystem', 'privileged', 'allowPrivilegeEscalation', 'procMount', 'runAsUser', 'runAsGroup'] as const;
    for (const f of fields) if (csc[f] !== undefined) errs.push(fieldErrors.forbidden(cp.child(f), msg));
  }
  return errs;
}

/** `validateWindowsHostProcessPod`: all-or-nothing hostProcess containers, with hostNetwork. */
export function validateWindowsHostProcessPod(spec: PodSpec, path: Path, allowPrivileged = true): FieldError[] {
  const errs: FieldError[] = [];
  const podHostProcess = spec.securityContext?.windowsOptions?.hostProcess;
  const hostNetwork = spec.hostNetwork === true;
  let count = 0;
  let hostProcessCount = 0;
  for (const { c, p } of containersWithPaths(spec, path)) {
    count++;
    const ch = c.securityContext?.windowsOptions?.hostProcess;
    if (podHostProcess !== undefined && ch !== undefined && podHostProcess !== ch) {
      errs.push(fieldErrors.invalid(p.child('securityContext', 'windowsOptions', 'hostProcess'), ch, `pod hostProcess value must be identical if both are specified, was ${podHostProcess}`));
    }
    if (ch === true || (ch === undefined && podHostProcess === true)) hostProcessCount++;
  }
  if (hostProcessCount > 0) {
    if (hostProcessCount !== count) errs.push(fieldErrors.invalid(path, '', 'If pod contains any hostProcess containers then all containers must be HostProcess containers'));
    if (!hostNetwork) errs.push(fieldErrors.invalid(path.child('hostNetwork'), hostNetwork, 'hostNetwork must be true if pod contains any hostProcess containers'));
    if (!allowPrivileged) errs.push(fieldErrors.forbidden(path, 'hostProcess containers are disallowed by cluster policy'));
  }
  return errs;
}

/** `ValidatePodSpec`. */
export function validatePodSpec(spec: PodSpec, path: Path, opts: PodSpecOptions = {}): FieldError[] {
  const errs: FieldError[] = [];
  const vols = validateVolumes(spec.volumes, path.child('volumes'));
  for (const v of opts.extraVolumes ?? []) vols.names.add(v);
  errs.push(...vols.errs);
  errs.push(...validateContainers(spec, vols.names, path));
  errs.push(...validateHostNetworkPorts(spec, path));
  switch (spec.restartPolicy ?? '') {
    case 'Always':
    case 'OnFailure':
    case 'Never':
      break;
    case '':
      errs.push(fieldErrors.required(path.child('restartPolicy'), ''));
      break;
    default:
      errs.push(fieldErrors.notSupported(path.child('restartPolicy'), spec.restartPolicy, ['Always', 'OnFailure', 'Never']));
  }
  switch (spec.dnsPolicy ?? '') {
    case 'ClusterFirstWithHostNet':
    case 'ClusterFirst':
    case 'Default':
    case 'None':
      break;
    case '':
      errs.push(fieldErrors.required(path.child('dnsPolicy'), ''));
      break;
    default:
      errs.push(fieldErrors.notSupported(path.child('dnsPolicy'), spec.dnsPolicy, ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None']));
  }
  if (spec.dnsPolicy === 'None' && spec.dnsConfig === undefined) {
    errs.push(fieldErrors.required(path.child('dnsConfig'), 'must provide `dnsConfig` when `dnsPolicy` is None'));
  }
  errs.push(...validateLabels(spec.nodeSelector, path.child('nodeSelector')));
  errs.push(...validateSecurityContexts(spec, path, opts.allowPrivileged ?? true));
  errs.push(...validateAffinity(spec.affinity, path.child('affinity')));
  (spec.readinessGates ?? []).forEach((g, i) => errs.push(...validateQualifiedName(g.conditionType, path.child('readinessGates').index(i).child('conditionType'))));
  const gates = new Set<string>();
  (spec.schedulingGates ?? []).forEach((g, i) => {
    errs.push(...validateQualifiedName(g.name, path.child('schedulingGates').index(i)));
    if (gates.has(g.name)) errs.push(fieldErrors.duplicate(path.child('schedulingGates').index(i), g.name));
    gates.add(g.name);
  });
  errs.push(...validateTopologySpreadConstraints(spec.topologySpreadConstraints, path.child('topologySpreadConstraints')));
  errs.push(...validateWindowsHostProcessPod(spec, path, opts.allowPrivileged ?? true));
  if ((spec.serviceAccountName ?? '') !== '') {
    for (const m of nameIsDNSSubdomain(spec.serviceAccountName ?? '', false)) errs.push(fieldErrors.invalid(path.child('serviceAccountName'), spec.serviceAccountName, m));
  }
  if ((spec.nodeName ?? '') !== '') {
    for (const m of nameIsDNSSubdomain(spec.nodeName ?? '', false)) errs.push(fieldErrors.invalid(path.child('nodeName'), spec.nodeName, m));
  }
  if (spec.activeDeadlineSeconds !== undefined && (spec.activeDeadlineSeconds < 1 || spec.activeDeadlineSeconds > maxInt32)) {
    errs.push(fieldErrors.invalid(path.child('activeDeadlineSeconds'), spec.activeDeadlineSeconds, inclusiveRangeError(1, maxInt32)));
  }
  if ((spec.hostname ?? '') !== '') errs.push(...validateDNS1123Label(spec.hostname ?? '', path.child('hostname')));
  if ((spec.subdomain ?? '') !== '') errs.push(...validateDNS1123Label(spec.subdomain ?? '', path.child('subdomain')));
  if ((spec.tolerations ?? []).length > 0) errs.push(...validateTolerations(spec.tolerations, path.child('tolerations')));
  if ((spec.priorityClassName ?? '') !== '') {
    for (const m of nameIsDNSSubdomain(spec.priorityClassName ?? '', false)) errs.push(fieldErrors.invalid(path.child('priorityClassName'), spec.priorityClassName, m));
  }
  if (spec.runtimeClassName !== undefined) {
    for (const m of nameIsDNSSubdomain(spec.runtimeClassName, false)) errs.push(fieldErrors.invalid(path.child('runtimeClassName'), spec.runtimeClassName, m));
  }
  if (spec.preemptionPolicy !== undefined && spec.preemptionPolicy !== 'PreemptLowerPriority' && spec.preemptionPolicy !== 'Never') {
    errs.push(fieldErrors.notSupported(path.child('preemptionPolicy'), spec.preemptionPolicy, ['PreemptLowerPriority', 'Never']));
  }
  if (spec.overhead !== undefined) errs.push(...validateResourceList(spec.overhead, path.child('overhead')));
  if (spec.os !== undefined) {
    const osErrs = validateOS(spec, path.child('os'));
    if (osErrs.length > 0) errs.push(...osErrs);
    else if (spec.os.name === 'linux') errs.push(...validateLinux(spec, path));
    else if (spec.os.name === 'windows') errs.push(...validateWindows(spec, path));
  }
  return errs;
}

/** `ValidatePodSpecificAnnotations` (the mirror-pod rule). */
function validatePodSpecificAnnotations(annotations: Record<string, string> | undefined, spec: PodSpec, path: Path): FieldError[] {
  const v = annotations?.[mirrorPodAnnotationKey];
  if (v !== undefined && (spec.nodeName ?? '') === '') {
    return [fieldErrors.invalid(path.key(mirrorPodAnnotationKey), v, 'must set spec.nodeName if mirror pod annotation is set')];
  }
  return [];
}

/** `ValidatePodTemplateSpec` (workload templates; labels are reported at `<path>.labels`, as upstream does). */
export function validatePodTemplateSpec(tpl: PodTemplateSpec | undefined, path: Path, opts: PodSpecOptions = {}): FieldError[] {
  const t = tpl ?? {};
  const errs = validateLabels(t.metadata?.labels, path.child('labels'));
  errs.push(...validateAnnotations(t.metadata?.annotations, path.child('annotations')));
  const spec = t.spec ?? ({ containers: [] });
  errs.push(...validatePodSpecificAnnotations(t.metadata?.annotations, spec, path.child('annotations')));
  errs.push(...validatePodSpec(spec, path.child('spec'), opts));
  if ((spec.ephemeralContainers ?? []).length > 0) errs.push(fieldErrors.forbidden(path.child('spec', 'ephemeralContainers'), 'ephemeral containers not allowed in pod template'));
  return errs;
}

function validateContainersOnlyForPod(list: readonly Container[] | undefined, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  (list ?? []).forEach((c, i) => {
    const image = c.image ?? '';
    if (image === '') errs.push(fieldErrors.required(path.index(i).child('image'), ''));
    else if (image.length !== image.trim().length) errs.push(fieldErrors.invalid(path.index(i).child('image'), image, 'must not have leading or trailing whitespace'));
  });
  return errs;
}

function validatePodMetadataAndSpec(pod: Pod, opts: PodSpecOptions): FieldError[] {
  const metaPath = Path.root('metadata');
  const specPath = Path.root('spec');
  const spec = pod.spec ?? ({ containers: [] });
  const errs = validateObjectMeta(pod.metadata, { namespaced: true, nameFn: nameIsDNSSubdomain }, metaPath);
  errs.push(...validatePodSpecificAnnotations(pod.metadata?.annotations, spec, metaPath.child('annotations')));
  errs.push(...validatePodSpec(spec, specPath, opts));
  if ((spec.serviceAccountName ?? '') === '') {
    (spec.volumes ?? []).forEach((v, vi) => {
      (v.projected?.sources ?? []).forEach((s, si) => {
        if (s.serviceAccountToken !== undefined) {
          errs.push(fieldErrors.forbidden(specPath.child('volumes').index(vi).child('projected').child('sources').index(si).child('serviceAccountToken'), 'must not be specified when serviceAccountName is not set'));
        }
      });
    });
  }
  errs.push(...validateContainersOnlyForPod(spec.containers, specPath.child('containers')));
  errs.push(...validateContainersOnlyForPod(spec.initContainers, specPath.child('initContainers')));
  return errs;
}

/** `ValidatePodCreate`. */
export function validatePodCreate(pod: Pod, opts: PodSpecOptions = {}): FieldError[] {
  const errs = validatePodMetadataAndSpec(pod, opts);
  const spec = pod.spec;
  if ((spec?.ephemeralContainers ?? []).length > 0) errs.push(fieldErrors.forbidden(Path.root('spec').child('ephemeralContainers'), 'cannot be set on create'));
  if ((spec?.nodeName ?? '') !== '' && (spec?.schedulingGates ?? []).length !== 0) {
    errs.push(fieldErrors.forbidden(Path.root('spec').child('nodeName'), 'cannot be set until all schedulingGates have been cleared'));
  }
  return errs;
}

/** The fields `kubectl` users may change on a running pod (`ValidatePodUpdate`'s message, v1.32). */
export const updatablePodSpecFields = [
  '`spec.containers[*].image`',
  '`spec.initContainers[*].image`',
  '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)',
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
];

function goFieldName(jsonKey: string): string {
  const special: Record<string, string> = { hostPID: 'HostPID', hostIPC: 'HostIPC', os: 'OS', nodeName: 'NodeName', dnsPolicy: 'DNSPolicy', dnsConfig: 'DNSConfig' };
  return special[jsonKey] ?? jsonKey.charAt(0).toUpperCase() + jsonKey.slice(1);
}

/**
 * An approximation of upstream's `cmp.Diff(oldPod.Spec, mungedPodSpec)` text: the changed top-level
 * fields as `-`/`+` lines inside `core.PodSpec{...}`. Upstream prints Go values; we print JSON.
 */
export function podSpecDiff(oldSpec: PodSpec, newSpec: PodSpec): string {
  const keys = [...new Set([...Object.keys(oldSpec), ...Object.keys(newSpec)])];
  const o = oldSpec as unknown as Record<string, unknown>;
  const n = newSpec as unknown as Record<string, unknown>;
  const lines = ['  core.PodSpec{'];
  let identical = 0;
  for (const k of keys) {
    if (semanticDeepEqual(o[k], n[k])) {
      identical++;
      continue;
    }
    if (identical > 0) lines.push(`  \t... // ${identical} identical fields`);
    identical = 0;
    if (o[k] !== undefined) lines.push(`- \t${goFieldName(k)}: ${JSON.stringify(o[k])},`);
    if (n[k] !== undefined) lines.push(`+ \t${goFieldName(k)}: ${JSON.stringify(n[k])},`);
  }
  if (identical > 0) lines.push(`  \t... // ${identical} identical fields`);
  lines.push('  }');
  return `${lines.join('\n')}\n`;
}

function validateContainerUpdates(newList: readonly Container[], oldList: readonly Container[], path: Path): { errs: FieldError[]; stop: boolean } {
  if (newList.length !== oldList.length) return { errs: [fieldErrors.forbidden(path, 'pod updates may not add or remove containers')], stop: true };
  const errs: FieldError[] = [];
  newList.forEach((c, i) => {
    const image = c.image ?? '';
    if (image === '') errs.push(fieldErrors.required(path.index(i).child('image'), ''));
    if (image.trim().length !== image.length) errs.push(fieldErrors.invalid(path.index(i).child('image'), image, 'must not have leading or trailing whitespace'));
  });
  return { errs, stop: false };
}

function validatePodSpecificAnnotationUpdates(newPod: Pod, oldPod: Pod, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const n = newPod.metadata?.annotations ?? {};
  const o = oldPod.metadata?.annotations ?? {};
  if (o[mirrorPodAnnotationKey] !== undefined && n[mirrorPodAnnotationKey] !== o[mirrorPodAnnotationKey]) {
    errs.push(fieldErrors.forbidden(path.key(mirrorPodAnnotationKey), 'may not remove or update mirror pod annotation'));
  }
  if (o[mirrorPodAnnotationKey] === undefined && n[mirrorPodAnnotationKey] !== undefined) {
    errs.push(fieldErrors.forbidden(path.key(mirrorPodAnnotationKey), 'may not add mirror pod annotation'));
  }
  errs.push(...validatePodSpecificAnnotations(newPod.metadata?.annotations, newPod.spec ?? ({ containers: [] }), path));
  return errs;
}

/** `ValidatePodUpdate`: only images, activeDeadlineSeconds, added tolerations, removed scheduling gates. */
export function validatePodUpdate(newPod: Pod, oldPod: Pod, opts: PodSpecOptions = {}): FieldError[] {
  const metaPath = Path.root('metadata');
  const specPath = Path.root('spec');
  const errs = validateObjectMetaUpdate(newPod.metadata, oldPod.metadata, metaPath);
  errs.push(...validatePodMetadataAndSpec(newPod, opts));
  errs.push(...validatePodSpecificAnnotationUpdates(newPod, oldPod, metaPath.child('annotations')));
  const ns = newPod.spec ?? ({ containers: [] });
  const os = oldPod.spec ?? ({ containers: [] });
  for (const [field, nl, ol] of [
    ['containers', ns.containers, os.containers],
    ['initContainers', ns.initContainers ?? [], os.initContainers ?? []],
  ] as const) {
    const r = validateContainerUpdates(nl, ol, specPath.child(field));
    errs.push(...r.errs);
    if (r.stop) return errs;
  }
  if (ns.activeDeadlineSeconds !== undefined) {
    const v = ns.activeDeadlineSeconds;
    if (v < 0 || v > maxInt32) {
      errs.push(fieldErrors.invalid(specPath.child('activeDeadlineSeconds'), v, inclusiveRangeError(0, maxInt32)));
      return errs;
    }
    if (os.activeDeadlineSeconds !== undefined && os.activeDeadlineSeconds < v) {
      errs.push(fieldErrors.invalid(specPath.child('activeDeadlineSeconds'), v, 'must be less than or equal to previous value'));
      return errs;
    }
  } else if (os.activeDeadlineSeconds !== undefined) {
    errs.push(fieldErrors.invalid(specPath.child('activeDeadlineSeconds'), null, 'must not update from a positive integer to nil value'));
  }
  errs.push(...validateOnlyAddedTolerations(ns.tolerations, os.tolerations, specPath.child('tolerations')));
  const oldGates = new Set((os.schedulingGates ?? []).map((g) => g.name));
  for (const g of ns.schedulingGates ?? []) {
    if (!oldGates.has(g.name)) {
      errs.push(fieldErrors.forbidden(specPath.child('schedulingGates'), 'only deletion is allowed, but found new scheduling gate ' + `'${g.name}'`));
      break;
    }
  }
  if (semanticDeepEqual(ns, os)) return errs;
  const munged: PodSpec = { ...ns };
  munged.containers = ns.containers.map((c, i) => ({ ...c, image: os.containers[i]?.image ?? '' }));
  if (ns.initContainers !== undefined) munged.initContainers = ns.initContainers.map((c, i) => ({ ...c, image: os.initContainers?.[i]?.image ?? '' }));
  setOrDelete(munged, 'activeDeadlineSeconds', os.activeDeadlineSeconds);
  setOrDelete(munged, 'tolerations', os.tolerations);
  if ((os.schedulingGates ?? []).length > 0) {
    setOrDelete(munged, 'schedulingGates', os.schedulingGates);
    setOrDelete(munged, 'nodeSelector', os.nodeSelector);
    setOrDelete(munged, 'affinity', os.affinity);
  }
  if (os.terminationGracePeriodSeconds !== undefined && os.terminationGracePeriodSeconds < 0 && ns.terminationGracePeriodSeconds === 1) {
    munged.terminationGracePeriodSeconds = os.terminationGracePeriodSeconds;
  }
  if (!semanticDeepEqual(munged, os)) {
    errs.push(fieldErrors.forbidden(specPath, `pod updates may not change fields other than ${updatablePodSpecFields.join(',')}\n${podSpecDiff(os, munged)}`));
  }
  return errs;
}

function setOrDelete<K extends keyof PodSpec>(spec: PodSpec, key: K, value: PodSpec[K] | undefined): void {
  if (value === undefined) delete spec[key];
  else spec[key] = value;
}

const systemPodConditions = new Set(['PodScheduled', 'Ready', 'Initialized', 'ContainersReady', 'PodReadyToStartContainers', 'DisruptionTarget']);

/** `ValidatePodStatusUpdate` (spec changes are ignored by the status strategy before this runs). */
export function validatePodStatusUpdate(newPod: Pod, oldPod: Pod): FieldError[] {
  const metaPath = Path.root('metadata');
  const errs = validateObjectMetaUpdate(newPod.metadata, oldPod.metadata, metaPath);
  errs.push(...validatePodSpecificAnnotationUpdates(newPod, oldPod, metaPath.child('annotations')));
  const statusPath = Path.root('status');
  (newPod.status?.conditions ?? []).forEach((c, i) => {
    if (!systemPodConditions.has(c.type)) errs.push(...validateQualifiedName(c.type, statusPath.child('conditions').index(i).child('Type')));
  });
  if ((newPod.spec?.nodeName ?? '') !== (oldPod.spec?.nodeName ?? '')) errs.push(fieldErrors.forbidden(statusPath.child('nodeName'), 'may not be changed directly'));
  const nn = newPod.status?.nominatedNodeName ?? '';
  if (nn !== (oldPod.status?.nominatedNodeName ?? '') && nn !== '') {
    for (const m of nameIsDNSSubdomain(nn, false)) errs.push(fieldErrors.invalid(statusPath.child('nominatedNodeName'), nn, m));
  }
  for (const [field, list] of [
    ['containerStatuses', newPod.status?.containerStatuses],
    ['initContainerStatuses', newPod.status?.initContainerStatuses],
  ] as const) {
    (list ?? []).forEach((s, i) => errs.push(...validateNonnegativeField(s.restartCount, statusPath.child(field).index(i).child('restartCount'))));
  }
  if (newPod.spec?.restartPolicy === 'Never') {
    const old = new Map((oldPod.status?.containerStatuses ?? []).map((s) => [s.name, s]));
    (newPod.status?.containerStatuses ?? []).forEach((s, i) => {
      const o = old.get(s.name);
      if (o?.state?.terminated !== undefined && s.state?.terminated === undefined) {
        errs.push(fieldErrors.forbidden(statusPath.child('containerStatuses').index(i).child('state'), 'may not be transitioned to non-terminated state'));
      }
    });
  }
  return errs;
}

/** The metadata rules of a pod-template owner, re-exported for workload validators. */
export function templateLabels(tpl: PodTemplateSpec | undefined): Record<string, string> | undefined {
  return (tpl?.metadata)?.labels;
}

export { GoValue };
