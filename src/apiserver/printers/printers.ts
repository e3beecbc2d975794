/**
 * Server-side `Table` printing (`Accept: application/json;as=Table;g=meta.k8s.io;v=v1`), cell for cell as
 * kube-apiserver 1.32 prints (upstream `pkg/printers/internalversion/printers.go`, always `Wide: true`, and
 * `k8s.io/apiserver/pkg/registry/rest` `DefaultTableConvertor` for resources without a printer).
 * Pure: the caller passes the clock (`now`, ms since the epoch).
 */
import type { ObjectMeta, LabelSelector } from 'kubernetes-types/meta/v1.js';
import type {
  ConfigMap,
  Container,
  PodTemplate,
  ReplicationController,
  Endpoints,
  Event,
  Namespace,
  Node,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  ResourceQuota,
  Secret,
  Service,
  ServiceAccount,
} from 'kubernetes-types/core/v1.js';
import type { ControllerRevision, DaemonSet, Deployment, ReplicaSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { CronJob, Job, JobCondition } from 'kubernetes-types/batch/v1.js';
import type { HorizontalPodAutoscaler, MetricSpec, MetricStatus } from 'kubernetes-types/autoscaling/v2.js';
import type { Ingress, IngressClass, NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import type { ClusterRoleBinding, RoleBinding, Subject } from 'kubernetes-types/rbac/v1.js';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { PriorityClass } from 'kubernetes-types/scheduling/v1.js';
import type { RuntimeClass } from 'kubernetes-types/node/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import type { CSIDriver, CSINode, CSIStorageCapacity, StorageClass, VolumeAttachment } from 'kubernetes-types/storage/v1.js';
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from 'kubernetes-types/admissionregistration/v1.js';
import type { FlowSchema, PriorityLevelConfiguration } from 'kubernetes-types/flowcontrol/v1.js';
import type { APIService } from '../local-apiservices.js';
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import { canonicalQuantity } from '../../api/quantity.js';
import { formatLabels } from '../../api/labels.js';
import { isDefaultAnnotation } from '../../api/pv-helpers.js';
import { humanDuration } from './duration.js';
import { columnsFor, printedAs, type TableColumnDefinition } from './columns.js';
import { compareStrings } from '../../util/compare-strings.js';
import { accessModesAsString } from '../../api/pv-helpers.js';
import { compareFlowSchemas } from '../flowcontrol-bootstrap.js';
import { internalMetadata } from '../registry/strategy.js';

/** Any Kubernetes object as stored: apiVersion, kind, metadata and the rest. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [field: string]: unknown;
}

export interface TableRowCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface TableRow {
  cells: unknown[];
  conditions?: TableRowCondition[];
  /** PartialObjectMetadata, the full object, or null, per `includeObject`. */
  object: unknown;
}

export interface Table {
  kind: 'Table';
  apiVersion: 'meta.k8s.io/v1';
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  columnDefinitions: TableColumnDefinition[];
  rows: TableRow[];
}

/** `metav1.IncludeObjectPolicy` (`?includeObject=`); kubectl asks for `Metadata`, the default. */
export type IncludeObjectPolicy = 'None' | 'Metadata' | 'Object';

export interface PrintOptions {
  includeObject: IncludeObjectPolicy;
  /** The server's clock, ms since the epoch. */
  now: number;
  /** The list's metadata (resourceVersion, continue, remainingItemCount), copied to the Table. */
  listMeta?: Table['metadata'];
  /** `?noHeaders=true` (TableOptions.NoHeaders): omit the column definitions. */
  noHeaders?: boolean;
}

type Cells = unknown[];
interface Printed {
  cells: Cells;
  conditions?: TableRowCondition[];
}
type Printer = (obj: KubeObject, now: number) => Printed;

function as<T>(obj: KubeObject): T {
  return obj as unknown as T;
}

/** `translateTimestampSince`: the age of a timestamp, `<unknown>` when unset. */
export function translateTimestampSince(ts: string | undefined | null, now: number): string {
  if (ts === undefined || ts === null || ts === '') return '<unknown>';
  const t = Date.parse(ts);
  if (Number.isNaN(t)) return '<unknown>';
  return humanDuration(now - t);
}

function age(obj: KubeObject, now: number): string {
  return translateTimestampSince(obj.metadata?.creationTimestamp, now);
}

function name(obj: KubeObject): string {
  return obj.metadata?.name ?? '';
}

function qty(s: string | number | undefined): string {
  if (s === undefined) return '0';
  try {
    return canonicalQuantity(s);
  } catch {
    return String(s);
  }
}

/** `metav1.FormatLabelSelector`: matchLabels as `k=v`, expressions, sorted by key; `<none>` when empty. */
export function formatLabelSelector(ls: LabelSelector | undefined | null): string {
  const s = labelSelectorString(ls);
  return s === '' ? '<none>' : s;
}

/** `metav1.LabelSelectorAsSelector(ls).String()`; `<invalid>` for an unknown operator. */
function labelSelectorString(ls: LabelSelector | undefined | null): string {
  if (ls === undefined || ls === null) return '';
  const reqs: Array<[string, string]> = [];
  for (const [k, v] of Object.entries(ls.matchLabels ?? {})) reqs.push([k, `${k}=${v}`]);
  for (const e of ls.matchExpressions ?? []) {
    const values = [...(e.values ?? [])].sort().join(',');
    switch (e.operator) {
      case 'In':
        reqs.push([e.key, `${e.key} in (${values})`]);
        break;
      case 'NotIn':
        reqs.push([e.key, `${e.key} notin (${values})`]);
        break;
      case 'Exists':
        reqs.push([e.key, e.key]);
        break;
      case 'DoesNotExist':
        reqs.push([e.key, `!${e.key}`]);
        break;
      default:
        return '<invalid>';
    }
  }
  reqs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return reqs.map((r) => r[1]).join(',');
}

function layoutContainerCells(containers: readonly Container[] | undefined): [string, string] {
  const cs = containers ?? [];
  return [cs.map((c) => c.name).join(','), cs.map((c) => c.image ?? '').join(',')];
}

// ---- pods ----

const podSuccessConditions: TableRowCondition[] = [
  { type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' },
];
const podFailedConditions: TableRowCondition[] = [
  { type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' },
];

function isRestartableInitContainer(c: Container | undefined): boolean {
  return c?.restartPolicy === 'Always';
}

function laterOf(a: string, b: string | undefined): string {
  if (b === undefined || b === '') return a;
  if (a === '') return b;
  return Date.parse(b) > Date.parse(a) ? b : a;
}

/** The pod row: READY, STATUS (the aggregate reason), RESTARTS (`N (Xm ago)`), AGE, IP, NODE, ... */
export function printPod(obj: KubeObject, now: number): Printed {
  const pod = as<Pod>(obj);
  const spec = pod.spec;
  const status = pod.status ?? {};
  let restarts = 0;
  let restartableInitContainerRestarts = 0;
  let totalContainers = (spec?.containers ?? []).length;
  let readyContainers = 0;
  let lastRestartDate = '';
  let lastRestartableInitContainerRestartDate = '';

  const podPhase = status.phase ?? '';
  let reason = status.reason !== undefined && status.reason !== '' ? status.reason : podPhase;
  for (const c of status.conditions ?? []) {
    if (c.type === 'PodScheduled' && c.reason === 'SchedulingGated') reason = 'SchedulingGated';
  }

  let conditions: TableRowCondition[] | undefined;
  if (podPhase === 'Succeeded') conditions = podSuccessConditions;
  else if (podPhase === 'Failed') conditions = podFailedConditions;

  const initContainers = new Map<string, Container>();
  for (const c of spec?.initContainers ?? []) {
    initContainers.set(c.name, c);
    if (isRestartableInitContainer(c)) totalContainers++;
  }

  let initializing = false;
  const initStatuses = status.initContainerStatuses ?? [];
  for (let i = 0; i < initStatuses.length; i++) {
    const container = initStatuses[i];
    if (container === undefined) continue;
    restarts += container.restartCount;
    const lastTerminated = container.lastState?.terminated;
    if (lastTerminated) lastRestartDate = laterOf(lastRestartDate, lastTerminated.finishedAt);
    const restartable = isRestartableInitContainer(initContainers.get(container.name));
    if (restartable) {
      restartableInitContainerRestarts += container.restartCount;
      if (lastTerminated) {
        lastRestartableInitContainerRestartDate = laterOf(lastRestartableInitContainerRestartDate, lastTerminated.finishedAt);
      }
    }
    const terminated = container.state?.terminated;
    const waiting = container.state?.waiting;
    if (terminated && terminated.exitCode === 0) continue;
    if (restartable && container.started === true) {
      if (container.ready) readyContainers++;
      continue;
    }
    if (terminated) {
      if (terminated.reason === undefined || terminated.reason === '') {
        reason = terminated.signal !== undefined && terminated.signal !== 0 ? `Init:Signal:${terminated.signal}` : `Init:ExitCode:${terminated.exitCode}`;
      } else {
        reason = `Init:${terminated.reason}`;
      }
    } else if (waiting && waiting.reason !== undefined && waiting.reason !== '' && waiting.reason !== 'PodInitializing') {
      reason = `Init:${waiting.reason}`;
    } else {
      reason = `Init:${i}/${spec?.initContainers?.length ?? 0}`;
    }
    initializing = true;
    break;
  }

  const initializedTrue = (status.conditions ?? []).some((c) => c.type === 'Initialized' && c.status === 'True');
  if (!initializing || initializedTrue) {
    restarts = restartableInitContainerRestarts;
    lastRestartDate = lastRestartableInitContainerRestartDate;
    let hasRunning = false;
    const statuses = status.containerStatuses ?? [];
    for (let i = statuses.length - 1; i >= 0; i--) {
      const container = statuses[i];
      if (container === undefined) continue;
      restarts += container.restartCount;
      const lastTerminated = container.lastState?.terminated;
      if (lastTerminated) lastRestartDate = laterOf(lastRestartDate, lastTerminated.finishedAt);
      const waiting = container.state?.waiting;
      const terminated = container.state?.terminated;
      if (waiting && waiting.reason !== undefined && waiting.reason !== '') {
        reason = waiting.reason;
      } else if (terminated && terminated.reason !== undefined && terminated.reason !== '') {
        reason = terminated.reason;
      } else if (terminated) {
        reason = terminated.signal !== undefined && terminated.signal !== 0 ? `Signal:${terminated.signal}` : `ExitCode:${terminated.exitCode}`;
      } else if (container.ready && container.state?.running) {
        hasRunning = true;
        readyContainers++;
      }
    }
    if (reason === 'Completed' && hasRunning) {
      const ready = (status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
      reason = ready ? 'Running' : 'NotReady';
    }
  }

  const deleting = obj.metadata?.deletionTimestamp !== undefined && obj.metadata.deletionTimestamp !== null;
  if (deleting && status.reason === 'NodeLost') {
    reason = 'Unknown';
  } else if (deleting && podPhase !== 'Failed' && podPhase !== 'Succeeded') {
    reason = 'Terminating';
  }

  let restartsStr = String(restarts);
  if (restarts !== 0 && lastRestartDate !== '') {
    restartsStr = `${restarts} (${translateTimestampSince(lastRestartDate, now)} ago)`;
  }

  const podIP = status.podIPs?.[0]?.ip ?? '';
  const nodeName = spec?.nodeName ?? '';
  const nominated = status.nominatedNodeName ?? '';
  let readinessGates = '<none>';
  const gates = spec?.readinessGates ?? [];
  if (gates.length > 0) {
    let trueConditions = 0;
    for (const g of gates) {
      const c = (status.conditions ?? []).find((x) => x.type === g.conditionType);
      if (c?.status === 'True') trueConditions++;
    }
    readinessGates = `${trueConditions}/${gates.length}`;
  }
  const cells: Cells = [
    name(obj),
    `${readyContainers}/${totalContainers}`,
    reason,
    restartsStr,
    age(obj, now),
    podIP === '' ? '<none>' : podIP,
    nodeName === '' ? '<none>' : nodeName,
    nominated === '' ? '<none>' : nominated,
    readinessGates,
  ];
  return conditions ? { cells, conditions } : { cells };
}

// ---- nodes ----

const labelNodeRolePrefix = 'node-role.kubernetes.io/';
const nodeLabelRole = 'kubernetes.io/role';

/** `findNodeRoles`: `node-role.kubernetes.io/<role>` keys and the `kubernetes.io/role` value, sorted. */
export function findNodeRoles(node: Node): string[] {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(node.metadata?.labels ?? {})) {
    if (k.startsWith(labelNodeRolePrefix)) {
      const role = k.slice(labelNodeRolePrefix.length);
      if (role.length > 0) roles.add(role);
    } else if (k === nodeLabelRole && v !== '') {
      roles.add(v);
    }
  }
  return [...roles].sort();
}

function printNode(obj: KubeObject, now: number): Printed {
  const node = as<Node>(obj);
  const status: string[] = [];
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready) status.push(ready.status === 'True' ? 'Ready' : 'NotReady');
  if (status.length === 0) status.push('Unknown');
  if (node.spec?.unschedulable === true) status.push('SchedulingDisabled');
  const roles = findNodeRoles(node).join(',');
  const info = node.status?.nodeInfo;
  const addr = (type: string): string => node.status?.addresses?.find((a) => a.type === type)?.address ?? '<none>';
  const orUnknown = (s: string | undefined): string => (s === undefined || s === '' ? '<unknown>' : s);
  return {
    cells: [
      name(obj),
      status.join(','),
      roles === '' ? '<none>' : roles,
      age(obj, now),
      info?.kubeletVersion ?? '',
      addr('InternalIP'),
      addr('ExternalIP'),
      orUnknown(info?.osImage),
      orUnknown(info?.kernelVersion),
      orUnknown(info?.containerRuntimeVersion),
    ],
  };
}

// ---- services ----

const loadBalancerWidth = 16;

function loadBalancerStatusString(ingress: ReadonlyArray<{ ip?: string; hostname?: string }> | undefined, wide: boolean): string {
  const result = new Set<string>();
  for (const i of ingress ?? []) {
    if (i.ip !== undefined && i.ip !== '') result.add(i.ip);
    else if (i.hostname !== undefined && i.hostname !== '') result.add(i.hostname);
  }
  let r = [...result].sort().join(',');
  if (!wide && r.length > loadBalancerWidth) r = `${r.slice(0, loadBalancerWidth - 3)}...`;
  return r;
}

/** `getServiceExternalIP` (kube-apiserver prints wide, so LoadBalancer addresses are not clipped). */
export function serviceExternalIP(svc: Service, wide = true): string {
  const externalIPs = svc.spec?.externalIPs ?? [];
  switch (svc.spec?.type) {
    case 'ClusterIP':
    case 'NodePort':
      return externalIPs.length > 0 ? externalIPs.join(',') : '<none>';
    case 'LoadBalancer': {
      const lbIps = loadBalancerStatusString(svc.status?.loadBalancer?.ingress, wide);
      if (externalIPs.length > 0) {
        const results = lbIps.length > 0 ? lbIps.split(',') : [];
        return [...results, ...externalIPs].join(',');
      }
      return lbIps.length > 0 ? lbIps : '<pending>';
    }
    case 'ExternalName':
      return svc.spec.externalName ?? '';
    default:
      return '<unknown>';
  }
}

/** `makePortString`: `80/TCP`, `80:30001/TCP`, comma-joined. */
export function servicePortString(svc: Service): string {
  return (svc.spec?.ports ?? [])
    .map((p) => {
      const proto = p.protocol ?? '';
      return p.nodePort !== undefined && p.nodePort > 0 ? `${p.port}:${p.nodePort}/${proto}` : `${p.port}/${proto}`;
    })
    .join(',');
}

function printService(obj: KubeObject, now: number): Printed {
  const svc = as<Service>(obj);
  const ports = servicePortString(svc);
  return {
    cells: [
      name(obj),
      svc.spec?.type ?? '',
      svc.spec?.clusterIPs?.[0] ?? '<none>',
      serviceExternalIP(svc),
      ports === '' ? '<none>' : ports,
      age(obj, now),
      formatLabels(svc.spec?.selector),
    ],
  };
}

// ---- endpoints ----

function joinHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

function formatEndpoints(ep: Endpoints): string {
  const subsets = ep.subsets ?? [];
  if (subsets.length === 0) return '<none>';
  const list: string[] = [];
  const maximum = 3;
  let more = false;
  let count = 0;
  for (const ss of subsets) {
    const addresses = ss.addresses ?? [];
    const ports = ss.ports ?? [];
    if (ports.length === 0) {
      count += addresses.length;
      for (const a of addresses) {
        if (list.length === maximum) {
          more = true;
          break;
        }
        list.push(a.ip);
      }
      continue;
    }
    for (const port of ports) {
      count += addresses.length;
      for (const a of addresses) {
        if (list.length === maximum) {
          more = true;
          break;
        }
        list.push(joinHostPort(a.ip, port.port));
      }
    }
  }
  const ret = list.join(',');
  return more ? `${ret} + ${count - maximum} more...` : ret;
}

function listWithMoreString(list: string[], more: boolean, count: number, max: number): string {
  const ret = list.join(',');
  if (more) return `${ret} + ${count - max} more...`;
  return ret === '' ? '<unset>' : ret;
}

function printEndpointSlice(obj: KubeObject, now: number): Printed {
  const es = as<EndpointSlice>(obj);
  const max = 3;
  const ports: string[] = [];
  let pMore = false;
  let pCount = 0;
  for (const p of es.ports ?? []) {
    if (ports.length < max) ports.push(p.port !== undefined ? String(p.port) : p.name !== undefined ? p.name : '*');
    else if (ports.length === max) pMore = true;
    pCount++;
  }
  const eps: string[] = [];
  let eMore = false;
  let eCount = 0;
  for (const e of es.endpoints ?? []) {
    for (const a of e.addresses ?? []) {
      if (eps.length < max) eps.push(a);
      else if (eps.length === max) eMore = true;
      eCount++;
    }
  }
  return {
    cells: [name(obj), es.addressType ?? '', listWithMoreString(ports, pMore, pCount, max), listWithMoreString(eps, eMore, eCount, max), age(obj, now)],
  };
}

// ---- workloads ----

function printReplicaSet(obj: KubeObject, now: number): Printed {
  const rs = as<ReplicaSet>(obj);
  const [names, images] = layoutContainerCells(rs.spec?.template?.spec?.containers);
  return {
    cells: [
      name(obj),
      rs.spec?.replicas ?? 0,
      rs.status?.replicas ?? 0,
      rs.status?.readyReplicas ?? 0,
      age(obj, now),
      names,
      images,
      formatLabelSelector(rs.spec?.selector),
    ],
  };
}

function printDeployment(obj: KubeObject, now: number): Printed {
  const d = as<Deployment>(obj);
  const [names, images] = layoutContainerCells(d.spec?.template?.spec?.containers);
  return {
    cells: [
      name(obj),
      `${d.status?.readyReplicas ?? 0}/${d.spec?.replicas ?? 0}`,
      d.status?.updatedReplicas ?? 0,
      d.status?.availableReplicas ?? 0,
      age(obj, now),
      names,
      images,
      labelSelectorString(d.spec?.selector),
    ],
  };
}

function printDaemonSet(obj: KubeObject, now: number): Printed {
  const ds = as<DaemonSet>(obj);
  const [names, images] = layoutContainerCells(ds.spec?.template?.spec?.containers);
  const st = ds.status;
  return {
    cells: [
      name(obj),
      st?.desiredNumberScheduled ?? 0,
      st?.currentNumberScheduled ?? 0,
      st?.numberReady ?? 0,
      st?.updatedNumberScheduled ?? 0,
      st?.numberAvailable ?? 0,
      formatLabels(ds.spec?.template?.spec?.nodeSelector),
      age(obj, now),
      names,
      images,
      formatLabelSelector(ds.spec?.selector),
    ],
  };
}

function printStatefulSet(obj: KubeObject, now: number): Printed {
  const ss = as<StatefulSet>(obj);
  const [names, images] = layoutContainerCells(ss.spec?.template?.spec?.containers);
  return { cells: [name(obj), `${ss.status?.readyReplicas ?? 0}/${ss.spec?.replicas ?? 0}`, age(obj, now), names, images] };
}

function hasJobCondition(conditions: readonly JobCondition[] | undefined, type: string): boolean {
  const c = (conditions ?? []).find((x) => x.type === type);
  return c?.status === 'True';
}

function printJob(obj: KubeObject, now: number): Printed {
  const job = as<Job>(obj);
  const succeeded = job.status?.succeeded ?? 0;
  let completions: string;
  if (job.spec?.completions !== undefined) {
    completions = `${succeeded}/${job.spec.completions}`;
  } else {
    const parallelism = job.spec?.parallelism ?? 0;
    completions = parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
  }
  let jobDuration = '';
  const start = job.status?.startTime;
  const completion = job.status?.completionTime;
  if (start !== undefined) {
    jobDuration = humanDuration((completion !== undefined ? Date.parse(completion) : now) - Date.parse(start));
  }
  const conds = job.status?.conditions;
  let status: string;
  if (hasJobCondition(conds, 'Complete')) status = 'Complete';
  else if (hasJobCondition(conds, 'Failed')) status = 'Failed';
  else if (obj.metadata?.deletionTimestamp !== undefined && obj.metadata.deletionTimestamp !== null) status = 'Terminating';
  else if (hasJobCondition(conds, 'Suspended')) status = 'Suspended';
  else if (hasJobCondition(conds, 'FailureTarget')) status = 'FailureTarget';
  else status = 'Running';
  const [names, images] = layoutContainerCells(job.spec?.template?.spec?.containers);
  return { cells: [name(obj), status, completions, jobDuration, age(obj, now), names, images, formatLabelSelector(job.spec?.selector)] };
}

function printBoolPtr(v: boolean | undefined): string {
  if (v === undefined) return '<unset>';
  return v ? 'True' : 'False';
}

function printCronJob(obj: KubeObject, now: number): Printed {
  const cj = as<CronJob>(obj);
  const last = cj.status?.lastScheduleTime;
  const jobSpec = cj.spec?.jobTemplate?.spec;
  const [names, images] = layoutContainerCells(jobSpec?.template?.spec?.containers);
  return {
    cells: [
      name(obj),
      cj.spec?.schedule ?? '',
      cj.spec?.timeZone ?? '<none>',
      printBoolPtr(cj.spec?.suspend),
      cj.status?.active?.length ?? 0,
      last !== undefined ? translateTimestampSince(last, now) : '<none>',
      age(obj, now),
      names,
      images,
      formatLabelSelector(jobSpec?.selector),
    ],
  };
}

function printControllerRevision(obj: KubeObject, now: number): Printed {
  const cr = as<ControllerRevision>(obj);
  const ref = obj.metadata?.ownerReferences?.find((o) => o.controller === true);
  let controller = '<none>';
  if (ref) {
    const group = ref.apiVersion.includes('/') ? ref.apiVersion.split('/')[0] ?? '' : '';
    const kind = group === '' ? ref.kind : `${ref.kind}.${group}`;
    controller = kind === '' ? ref.name : `${kind.toLowerCase()}/${ref.name}`;
  }
  return { cells: [name(obj), controller, cr.revision ?? 0, age(obj, now)] };
}

function printPodDisruptionBudget(obj: KubeObject, now: number): Printed {
  const pdb = as<PodDisruptionBudget>(obj);
  const ios = (v: string | number | undefined): string => (v === undefined ? 'N/A' : String(v));
  return {
    cells: [name(obj), ios(pdb.spec?.minAvailable), ios(pdb.spec?.maxUnavailable), pdb.status?.disruptionsAllowed ?? 0, age(obj, now)],
  };
}

// ---- core config and misc ----

function printEvent(obj: KubeObject, now: number): Printed {
  const ev = as<Event>(obj);
  // A zero metav1.Time: absent, empty, or null as storage reads it back (an events.k8s.io Event has none).
  const zero = (t: string | null | undefined): boolean => t === undefined || t === null || t === '';
  let firstTimestamp = translateTimestampSince(ev.firstTimestamp, now);
  if (zero(ev.firstTimestamp)) firstTimestamp = translateTimestampSince(ev.eventTime, now);
  let lastTimestamp = translateTimestampSince(ev.lastTimestamp, now);
  if (zero(ev.lastTimestamp)) lastTimestamp = firstTimestamp;
  let count = ev.count ?? 0;
  if (ev.series) {
    lastTimestamp = translateTimestampSince(ev.series.lastObservedTime, now);
    count = ev.series.count ?? 0;
  } else if (count === 0) {
    count = 1;
  }
  const io = ev.involvedObject ?? {};
  const kind = (io.kind ?? '').toLowerCase();
  const target = io.name !== undefined && io.name !== '' ? `${kind}/${io.name}` : kind;
  const component = ev.source?.component || ev.reportingComponent || '';
  const instance = ev.source?.host || ev.reportingInstance || '';
  const source = instance === '' ? component : `${component}, ${instance}`;
  return {
    cells: [lastTimestamp, ev.type ?? '', ev.reason ?? '', target, io.fieldPath ?? '', source, (ev.message ?? '').trim(), firstTimestamp, count, name(obj)],
  };
}

function printNamespace(obj: KubeObject, now: number): Printed {
  return { cells: [name(obj), as<Namespace>(obj).status?.phase ?? '', age(obj, now)] };
}

function printSecret(obj: KubeObject, now: number): Printed {
  const s = as<Secret>(obj);
  return { cells: [name(obj), s.type ?? '', Object.keys(s.data ?? {}).length, age(obj, now)] };
}

function printServiceAccount(obj: KubeObject, now: number): Printed {
  return { cells: [name(obj), as<ServiceAccount>(obj).secrets?.length ?? 0, age(obj, now)] };
}

function printConfigMap(obj: KubeObject, now: number): Printed {
  const cm = as<ConfigMap>(obj);
  return { cells: [name(obj), Object.keys(cm.data ?? {}).length + Object.keys(cm.binaryData ?? {}).length, age(obj, now)] };
}

const betaStorageClassAnnotation = 'volume.beta.kubernetes.io/storage-class';

function printPersistentVolumeClaim(obj: KubeObject, now: number): Printed {
  const pvc = as<PersistentVolumeClaim>(obj);
  const deleting = obj.metadata?.deletionTimestamp !== undefined && obj.metadata.deletionTimestamp !== null;
  const phase = deleting ? 'Terminating' : pvc.status?.phase ?? '';
  let capacity = '';
  let accessModes = '';
  const volumeName = pvc.spec?.volumeName ?? '';
  if (volumeName !== '') {
    accessModes = accessModesAsString(pvc.status?.accessModes);
    capacity = qty(pvc.status?.capacity?.['storage']);
  }
  const cls = obj.metadata?.annotations?.[betaStorageClassAnnotation] ?? pvc.spec?.storageClassName ?? '';
  return {
    cells: [
      name(obj),
      phase,
      volumeName,
      capacity,
      accessModes,
      cls,
      pvc.spec?.volumeAttributesClassName ?? '<unset>',
      age(obj, now),
      pvc.spec?.volumeMode ?? '<unset>',
    ],
  };
}

function printPersistentVolume(obj: KubeObject, now: number): Printed {
  const pv = as<PersistentVolume>(obj);
  const ref = pv.spec?.claimRef;
  const claim = ref ? `${ref.namespace ?? ''}/${ref.name ?? ''}` : '';
  const deleting = obj.metadata?.deletionTimestamp !== undefined && obj.metadata.deletionTimestamp !== null;
  const cls = obj.metadata?.annotations?.[betaStorageClassAnnotation] ?? pv.spec?.storageClassName ?? '';
  return {
    cells: [
      name(obj),
      qty(pv.spec?.capacity?.['storage']),
      accessModesAsString(pv.spec?.accessModes),
      pv.spec?.persistentVolumeReclaimPolicy ?? '',
      deleting ? 'Terminating' : pv.status?.phase ?? '',
      claim,
      cls,
      pv.spec?.volumeAttributesClassName ?? '<unset>',
      pv.status?.reason ?? '',
      age(obj, now),
      pv.spec?.volumeMode ?? '<unset>',
    ],
  };
}

function printResourceQuota(obj: KubeObject, now: number): Printed {
  const rq = as<ResourceQuota>(obj);
  const hard = rq.status?.hard ?? {};
  const used = rq.status?.used ?? {};
  const request: string[] = [];
  const limit: string[] = [];
  for (const res of Object.keys(hard).sort()) {
    const pieces = res.split('.');
    const target = pieces.length > 1 && pieces[0] === 'limits' ? limit : request;
    target.push(`${res}: ${qty(used[res])}/${qty(hard[res])}`);
  }
  return { cells: [name(obj), age(obj, now), request.join(', '), limit.join(', ')] };
}

// ---- networking, rbac, scheduling, ... ----

function printIngress(obj: KubeObject, now: number): Printed {
  const ing = as<Ingress>(obj);
  const rules = ing.spec?.rules ?? [];
  const list: string[] = [];
  const maximum = 3;
  let more = false;
  for (const r of rules) {
    if (list.length === maximum) more = true;
    if (!more && r.host !== undefined && r.host !== '') list.push(r.host);
  }
  let hosts = list.length === 0 ? '*' : list.join(',');
  if (list.length > 0 && more) hosts = `${hosts} + ${rules.length - maximum} more...`;
  const ports = (ing.spec?.tls ?? []).length !== 0 ? '80, 443' : '80';
  return {
    cells: [name(obj), ing.spec?.ingressClassName ?? '<none>', hosts, loadBalancerStatusString(ing.status?.loadBalancer?.ingress, true), ports, age(obj, now)],
  };
}

function printIngressClass(obj: KubeObject, now: number): Printed {
  const ic = as<IngressClass>(obj);
  const p = ic.spec?.parameters;
  let parameters = '<none>';
  if (p) parameters = `${p.kind}${p.apiGroup !== undefined ? `.${p.apiGroup}` : ''}/${p.name}`;
  return { cells: [name(obj), ic.spec?.controller ?? '', parameters, age(obj, now)] };
}

function printNetworkPolicy(obj: KubeObject, now: number): Printed {
  return { cells: [name(obj), formatLabelSelector(as<NetworkPolicy>(obj).spec?.podSelector ?? {}), age(obj, now)] };
}

function subjectsStrings(subjects: readonly Subject[] | undefined): [string, string, string] {
  const users: string[] = [];
  const groups: string[] = [];
  const sas: string[] = [];
  for (const s of subjects ?? []) {
    if (s.kind === 'ServiceAccount') sas.push(`${s.namespace ?? ''}/${s.name}`);
    else if (s.kind === 'User') users.push(s.name);
    else if (s.kind === 'Group') groups.push(s.name);
  }
  return [users.join(', '), groups.join(', '), sas.join(', ')];
}

function printRoleBinding(obj: KubeObject, now: number): Printed {
  const rb = as<RoleBinding | ClusterRoleBinding>(obj);
  return { cells: [name(obj), `${rb.roleRef?.kind ?? ''}/${rb.roleRef?.name ?? ''}`, age(obj, now), ...subjectsStrings(rb.subjects)] };
}

function printLease(obj: KubeObject, now: number): Printed {
  return { cells: [name(obj), as<Lease>(obj).spec?.holderIdentity ?? '', age(obj, now)] };
}

function printPriorityClass(obj: KubeObject, now: number): Printed {
  const pc = as<PriorityClass>(obj);
  return { cells: [name(obj), pc.value, pc.globalDefault ?? false, age(obj, now), pc.preemptionPolicy ?? ''] };
}

function printRuntimeClass(obj: KubeObject, now: number): Printed {
  return { cells: [name(obj), as<RuntimeClass>(obj).handler, age(obj, now)] };
}

function printStorageClass(obj: KubeObject, now: number): Printed {
  const sc = as<StorageClass>(obj);
  const isDefault = isDefaultAnnotation(sc);
  return {
    cells: [
      isDefault ? `${name(obj)} (default)` : name(obj),
      sc.provisioner,
      sc.reclaimPolicy ?? 'Delete',
      sc.volumeBindingMode ?? 'Immediate',
      sc.allowVolumeExpansion ?? false,
      age(obj, now),
    ],
  };
}

function formatHPAMetrics(specs: readonly MetricSpec[] | undefined, statuses: readonly MetricStatus[] | undefined): string {
  if (specs === undefined || specs.length === 0) return '<none>';
  const st = statuses ?? [];
  const list: string[] = [];
  const maximum = 2;
  specs.forEach((spec, i) => {
    const s = st[i];
    switch (spec.type) {
      case 'External': {
        const t = spec.external?.target;
        if (t?.averageValue !== undefined) {
          const cur = s?.external?.current.averageValue;
          list.push(`${cur !== undefined ? qty(cur) : '<unknown>'}/${qty(t.averageValue)} (avg)`);
        } else {
          const cur = s?.external ? qty(s.external.current.value) : '<unknown>';
          list.push(`${cur}/${qty(t?.value)}`);
        }
        break;
      }
      case 'Pods': {
        const cur = s?.pods ? qty(s.pods.current.averageValue) : '<unknown>';
        list.push(`${cur}/${qty(spec.pods?.target.averageValue)}`);
        break;
      }
      case 'Object': {
        const t = spec.object?.target;
        if (t?.averageValue !== undefined) {
          const cur = s?.object?.current.averageValue;
          list.push(`${cur !== undefined ? qty(cur) : '<unknown>'}/${qty(t.averageValue)} (avg)`);
        } else {
          const cur = s?.object ? qty(s.object.current.value) : '<unknown>';
          list.push(`${cur}/${qty(t?.value)}`);
        }
        break;
      }
      case 'Resource':
      case 'ContainerResource': {
        const src = spec.type === 'Resource' ? spec.resource : spec.containerResource;
        const cur = spec.type === 'Resource' ? s?.resource?.current : s?.containerResource?.current;
        const rname = src?.name ?? '';
        if (src?.target.averageValue !== undefined) {
          list.push(`${rname}: ${cur ? qty(cur.averageValue) : '<unknown>'}/${qty(src.target.averageValue)}`);
        } else {
          const c = cur?.averageUtilization !== undefined ? `${cur.averageUtilization}%` : '<unknown>';
          const t = src?.target.averageUtilization !== undefined ? `${src.target.averageUtilization}%` : '<auto>';
          list.push(`${rname}: ${c}/${t}`);
        }
        break;
      }
      default:
        list.push('<unknown type>');
    }
  });
  const count = list.length;
  if (count > maximum) return `${list.slice(0, maximum).join(', ')} + ${count - maximum} more...`;
  return list.join(', ');
}

function printHorizontalPodAutoscaler(obj: KubeObject, now: number): Printed {
  const hpa = as<HorizontalPodAutoscaler>(obj);
  const ref = hpa.spec?.scaleTargetRef;
  return {
    cells: [
      name(obj),
      `${ref?.kind ?? ''}/${ref?.name ?? ''}`,
      formatHPAMetrics(hpa.spec?.metrics, hpa.status?.currentMetrics),
      hpa.spec?.minReplicas !== undefined ? String(hpa.spec.minReplicas) : '<unset>',
      hpa.spec?.maxReplicas ?? 0,
      hpa.status?.currentReplicas ?? 0,
      age(obj, now),
    ],
  };
}

/** events.k8s.io/v1 Event -> core/v1 Event, as the internal conversion does, so both print alike. */
function eventsV1AsCore(obj: KubeObject): KubeObject {
  const core: KubeObject = { ...obj };
  const move = (from: string, to: string): void => {
    if (obj[from] !== undefined) core[to] = obj[from];
    delete core[from];
  };
  move('regarding', 'involvedObject');
  move('note', 'message');
  move('reportingController', 'reportingComponent');
  move('deprecatedSource', 'source');
  move('deprecatedFirstTimestamp', 'firstTimestamp');
  move('deprecatedLastTimestamp', 'lastTimestamp');
  move('deprecatedCount', 'count');
  return core;
}

function printReplicationController(obj: KubeObject, now: number): Printed {
  const rc = as<ReplicationController>(obj);
  const [names, images] = layoutContainerCells(rc.spec?.template?.spec?.containers);
  return {
    cells: [name(obj), rc.spec?.replicas ?? 0, rc.status?.replicas ?? 0, rc.status?.readyReplicas ?? 0, age(obj, now), names, images, formatLabels(rc.spec?.selector)],
  };
}

function printPodTemplate(obj: KubeObject): Printed {
  const pt = as<PodTemplate>(obj);
  const [names, images] = layoutContainerCells(pt.template?.spec?.containers);
  return { cells: [name(obj), names, images, formatLabels(pt.template?.metadata?.labels)] };
}

/** `extractCSRStatus`: Denied/Approved/Pending, then `,Failed` and `,Issued`. */
function csrCondition(csr: CertificateSigningRequest): string {
  const types = new Set((csr.status?.conditions ?? []).map((c) => c.type));
  let status = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) status += ',Failed';
  if ((csr.status?.certificate ?? '').length > 0) status += ',Issued';
  return status;
}

function printCertificateSigningRequest(obj: KubeObject, now: number): Printed {
  const csr = as<CertificateSigningRequest>(obj);
  const signer = csr.spec?.signerName ?? '';
  const exp = csr.spec?.expirationSeconds;
  return {
    cells: [name(obj), age(obj, now), signer === '' ? '<none>' : signer, csr.spec?.username ?? '', exp !== undefined ? humanDuration(exp * 1000) : '<none>', csrCondition(csr)],
  };
}

function printWebhookConfiguration(obj: KubeObject, now: number): Printed {
  const hooks = obj['webhooks'];
  return { cells: [name(obj), Array.isArray(hooks) ? hooks.length : 0, age(obj, now)] };
}

function printVolumeAttachment(obj: KubeObject, now: number): Printed {
  const va = as<VolumeAttachment>(obj);
  return { cells: [name(obj), va.spec?.attacher ?? '', va.spec?.source?.persistentVolumeName ?? '', va.spec?.nodeName ?? '', va.status?.attached ?? false, age(obj, now)] };
}

/** `printComponentStatus`: the Healthy condition's status word, message and error. */
function printComponentStatus(obj: KubeObject): Printed {
  const healthy = (obj['conditions'] as { type?: string; status?: string; message?: string; error?: string }[] | undefined)?.find((c) => c.type === 'Healthy');
  const status = healthy === undefined ? 'Unknown' : healthy.status === 'True' ? 'Healthy' : 'Unhealthy';
  return { cells: [name(obj), status, healthy?.message ?? '', healthy?.error ?? ''] };
}

function printCSINode(obj: KubeObject, now: number): Printed {
  return { cells: [name(obj), as<CSINode>(obj).spec?.drivers?.length ?? 0, age(obj, now)] };
}

function printCSIDriver(obj: KubeObject, now: number): Printed {
  const spec = as<CSIDriver>(obj).spec;
  const modes = (spec?.volumeLifecycleModes ?? []).join(',');
  const tokenRequests = spec?.tokenRequests !== undefined ? spec.tokenRequests.map((t) => t.audience).join(',') : '<unset>';
  return {
    cells: [
      name(obj),
      spec?.attachRequired ?? true,
      spec?.podInfoOnMount ?? false,
      spec?.storageCapacity ?? false,
      tokenRequests,
      spec?.requiresRepublish ?? false,
      modes === '' ? '<none>' : modes,
      age(obj, now),
    ],
  };
}

function printCSIStorageCapacity(obj: KubeObject): Printed {
  const c = as<CSIStorageCapacity>(obj);
  return { cells: [name(obj), c.storageClassName, c.capacity !== undefined ? qty(c.capacity) : '<unset>'] };
}

function printValidatingAdmissionPolicy(obj: KubeObject, now: number): Printed {
  const spec = as<ValidatingAdmissionPolicy>(obj).spec;
  const paramKind = spec?.paramKind !== undefined ? `${spec.paramKind.apiVersion ?? ''}/${spec.paramKind.kind ?? ''}` : '<unset>';
  return { cells: [name(obj), spec?.validations?.length ?? 0, paramKind, age(obj, now)] };
}

/** `metav1.LabelSelector.String()`, the gogo-protobuf form: map keys sorted, values as Go prints a []string. */
function labelSelectorProtoString(ls: LabelSelector): string {
  const labels = Object.keys(ls.matchLabels ?? {})
    .sort(compareStrings)
    .map((k) => `${k}: ${ls.matchLabels?.[k] ?? ''},`)
    .join('');
  const exprs = (ls.matchExpressions ?? []).map((e) => `LabelSelectorRequirement{Key:${e.key},Operator:${e.operator},Values:[${(e.values ?? []).join(' ')}],},`).join('');
  return `&LabelSelector{MatchLabels:map[string]string{${labels}},MatchExpressions:[]LabelSelectorRequirement{${exprs}},}`;
}

/** Go's string order (bytes; the same as UTF-16 code units for the ASCII of names and keys). */

function printValidatingAdmissionPolicyBinding(obj: KubeObject, now: number): Printed {
  const spec = as<ValidatingAdmissionPolicyBinding>(obj).spec;
  const pr = spec?.paramRef;
  let paramName = '<unset>';
  if (pr !== undefined) {
    if ((pr.name ?? '') !== '') {
      // Upstream cannot tell a cluster-scoped param from here, so a param without a namespace gets `*`.
      paramName = (pr.namespace ?? '') !== '' ? `${pr.namespace}/${pr.name}` : `*/${pr.name}`;
    } else if (pr.selector !== undefined) {
      paramName = labelSelectorProtoString(pr.selector);
    }
  }
  return { cells: [name(obj), spec?.policyName ?? '', paramName, age(obj, now)] };
}

function printFlowSchema(obj: KubeObject, now: number): Printed {
  const fs = as<FlowSchema>(obj);
  const dm = fs.spec?.distinguisherMethod;
  const dangling = fs.status?.conditions?.find((c) => c.type === 'Dangling');
  return {
    cells: [
      name(obj),
      fs.spec?.priorityLevelConfiguration?.name ?? '',
      fs.spec?.matchingPrecedence ?? 0,
      dm !== undefined ? dm.type ?? '' : '<none>',
      age(obj, now),
      dangling !== undefined ? dangling.status ?? '' : '?',
    ],
  };
}


function printPriorityLevelConfiguration(obj: KubeObject, now: number): Printed {
  const spec = as<PriorityLevelConfiguration>(obj).spec;
  const limited = spec?.limited;
  const q = limited?.limitResponse?.queuing;
  const none = '<none>';
  return {
    cells: [
      name(obj),
      spec?.type ?? '',
      limited !== undefined ? limited.nominalConcurrencyShares ?? 0 : none,
      q !== undefined ? q.queues ?? 0 : none,
      q !== undefined ? q.handSize ?? 0 : none,
      q !== undefined ? q.queueLengthLimit ?? 0 : none,
      age(obj, now),
    ],
  };
}

/** kube-aggregator's APIService rows: `Local` without a service, Available with its reason unless True. */
function printAPIService(obj: KubeObject, now: number): Printed {
  const svc = as<APIService>(obj);
  const ref = svc.spec?.service;
  const service = ref !== undefined && ref !== null ? `${ref.namespace ?? ''}/${ref.name ?? ''}` : 'Local';
  const c = svc.status?.conditions?.find((x) => x.type === 'Available');
  let available = 'Unknown';
  if (c !== undefined) available = c.status === 'True' || (c.reason ?? '') === '' ? (c.status ?? '') : `${c.status ?? ''} (${c.reason ?? ''})`;
  return { cells: [name(obj), service, available, age(obj, now)] };
}

function printDefault(obj: KubeObject): Printed {
  const ts = obj.metadata?.creationTimestamp;
  // Go formats the zero time as 0001-01-01T00:00:00Z.
  const created = ts !== undefined && ts !== '' ? new Date(Date.parse(ts)).toISOString().replace(/\.\d{3}Z$/, 'Z') : '0001-01-01T00:00:00Z';
  return { cells: [name(obj), created] };
}

const printers: Readonly<Record<string, Printer>> = {
  '/pods': printPod,
  '/nodes': printNode,
  '/services': printService,
  '/endpoints': (o, now) => ({ cells: [name(o), formatEndpoints(as<Endpoints>(o)), age(o, now)] }),
  '/namespaces': printNamespace,
  '/configmaps': printConfigMap,
  '/secrets': printSecret,
  '/serviceaccounts': printServiceAccount,
  '/events': printEvent,
  '/persistentvolumeclaims': printPersistentVolumeClaim,
  '/persistentvolumes': printPersistentVolume,
  '/resourcequotas': printResourceQuota,
  'apps/deployments': printDeployment,
  'apps/replicasets': printReplicaSet,
  'apps/daemonsets': printDaemonSet,
  'apps/statefulsets': printStatefulSet,
  'apps/controllerrevisions': printControllerRevision,
  'batch/jobs': printJob,
  'batch/cronjobs': printCronJob,
  'policy/poddisruptionbudgets': printPodDisruptionBudget,
  'networking.k8s.io/ingresses': printIngress,
  'networking.k8s.io/ingressclasses': printIngressClass,
  'networking.k8s.io/networkpolicies': printNetworkPolicy,
  'rbac.authorization.k8s.io/rolebindings': printRoleBinding,
  'rbac.authorization.k8s.io/clusterrolebindings': printRoleBinding,
  'coordination.k8s.io/leases': printLease,
  'scheduling.k8s.io/priorityclasses': printPriorityClass,
  'node.k8s.io/runtimeclasses': printRuntimeClass,
  'discovery.k8s.io/endpointslices': printEndpointSlice,
  'storage.k8s.io/storageclasses': printStorageClass,
  'autoscaling/horizontalpodautoscalers': printHorizontalPodAutoscaler,
  '/replicationcontrollers': printReplicationController,
  '/podtemplates': printPodTemplate,
  'certificates.k8s.io/certificatesigningrequests': printCertificateSigningRequest,
  'admissionregistration.k8s.io/mutatingwebhookconfigurations': printWebhookConfiguration,
  'admissionregistration.k8s.io/validatingwebhookconfigurations': printWebhookConfiguration,
  'storage.k8s.io/volumeattachments': printVolumeAttachment,
  'storage.k8s.io/csinodes': printCSINode,
  '/componentstatuses': printComponentStatus,
  'storage.k8s.io/csidrivers': printCSIDriver,
  'storage.k8s.io/csistoragecapacities': printCSIStorageCapacity,
  'admissionregistration.k8s.io/validatingadmissionpolicies': printValidatingAdmissionPolicy,
  'admissionregistration.k8s.io/validatingadmissionpolicybindings': printValidatingAdmissionPolicyBinding,
  'flowcontrol.apiserver.k8s.io/flowschemas': printFlowSchema,
  'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations': printPriorityLevelConfiguration,
  'apiregistration.k8s.io/apiservices': printAPIService,
  'events.k8s.io/events': (o, now) => printEvent(eventsV1AsCore(o), now),
};

/** List printers that sort their rows (upstream's `print...List` functions that do). */
const listOrders: Readonly<Record<string, (a: KubeObject, b: KubeObject) => number>> = {
  'flowcontrol.apiserver.k8s.io/flowschemas': (a, b) => compareFlowSchemas(as<FlowSchema>(a), as<FlowSchema>(b)),
};

function rowObject(group: string, resource: string, obj: KubeObject, policy: IncludeObjectPolicy): unknown {
  switch (policy) {
    case 'None':
      return null;
    case 'Object':
      return obj;
    case 'Metadata':
      return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: internalMetadata(group, resource, obj.metadata) };
  }
}

/**
 * Converts objects of one resource (plural, e.g. `pods`) in `group` (`''` for core) to a `meta.k8s.io/v1`
 * Table, with all columns (kube-apiserver always prints wide).
 */
export function printTable(resource: string, group: string, objects: readonly KubeObject[], opts: PrintOptions): Table {
  const key = `${group}/${resource}`;
  const printer = printers[key] ?? printDefault;
  const order = listOrders[key];
  const rows: TableRow[] = (order !== undefined ? [...objects].sort(order) : objects).map((obj) => {
    const p = printer(obj, opts.now);
    const row: TableRow = { cells: p.cells, object: rowObject(group, resource, obj, opts.includeObject) };
    if (p.conditions) row.conditions = p.conditions;
    return row;
  });
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: opts.listMeta ?? {},
    columnDefinitions: opts.noHeaders === true ? [] : columnsFor(group, resource).map((c) => ({ ...c })),
    rows,
  };
}

/** Whether kube-apiserver has a dedicated printer for the resource (else: Name, Created At). */
export function hasPrinter(group: string, resource: string): boolean {
  const key = `${group}/${resource}`;
  return printers[printedAs[key] ?? key] !== undefined;
}
