/**
 * `updateManagedFields` and `applyMergePatch` against straightforward reference computations: the
 * implementations they replaced (deep copies of both objects with the untracked fields deleted, a compare
 * that builds every child set, every entry decoded, changed and encoded again, a merge patch that copies
 * the whole document at each level). The fast paths skip equal subtrees, keep unchanged entries' FieldsV1
 * and copy only along changed paths; their results must be byte for byte the reference's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OpenApi } from '../openapi/openapi.js';
import { comparePathElements, FieldSet } from './fieldpath.js';
import { isObject, jsonEqual, type JsonObject, type JsonValue } from './json.js';
import { applyMergePatch } from './merge-patch.js';
import { maxUpdateManagers, rfc3339, updateManagedFields, type ApplySchema, type ManagedFieldsOptions } from './managed-fields.js';

// ---- the reference: the former implementation, kept verbatim in substance ----

type Kind = 'scalar' | 'atomic' | 'struct' | 'map' | 'listMap' | 'listSet' | 'listAtomic';

interface RefEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string | undefined;
  subresource: string | undefined;
  set: FieldSet;
}

const strippedMeta = ['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'];

function refToFieldsV1(s: FieldSet): JsonObject {
  const out: JsonObject = {};
  if (s.member && [...s.children.values()].some((c) => !c.isEmpty())) out['.'] = {};
  for (const k of [...s.children.keys()].sort(comparePathElements)) {
    const c = s.children.get(k);
    if (c && !c.isEmpty()) out[k] = refToFieldsV1(c);
  }
  return out;
}

function refRemovePath(o: JsonObject, path: readonly string[]): void {
  let cur: JsonValue | undefined = o;
  for (let i = 0; i < path.length - 1; i++) {
    if (!isObject(cur)) return;
    cur = cur[path[i] ?? ''];
  }
  if (isObject(cur)) delete cur[path[path.length - 1] ?? ''];
}

function refTracked(obj: JsonObject | undefined, reset: readonly (readonly string[])[]): JsonObject {
  const o = structuredClone(obj ?? {});
  delete o['apiVersion'];
  delete o['kind'];
  const meta = o['metadata'];
  if (isObject(meta)) for (const k of strippedMeta) delete meta[k];
  for (const p of reset) refRemovePath(o, p);
  return o;
}

function refStripMetadataMember(s: FieldSet): void {
  const m = s.children.get('f:metadata');
  if (m) {
    m.member = false;
    if (m.isEmpty()) s.children.delete('f:metadata');
  }
}

function refKindOf(node: ApplySchema | undefined, v: JsonValue | undefined): Kind {
  if (!node) {
    if (isObject(v)) return 'map';
    if (Array.isArray(v)) return 'listAtomic';
    return 'scalar';
  }
  const m = node.meta;
  if (node.isList()) {
    const strategies = (m.patchStrategy ?? '').split(',');
    const lt = m.listType ?? (strategies.includes('merge') ? (m.patchMergeKey !== undefined ? 'map' : 'set') : 'atomic');
    if (lt === 'map') return 'listMap';
    if (lt === 'set') return 'listSet';
    return 'listAtomic';
  }
  if (m.mapType === 'atomic') return 'atomic';
  if (node.isStruct()) return 'struct';
  if (node.isMap()) return 'map';
  if (isObject(v)) return 'map';
  return 'scalar';
}

function refItemElement(kind: Kind, node: ApplySchema | undefined, item: JsonValue): string {
  if (kind === 'listSet') return `v:${JSON.stringify(item)}`;
  const itemNode = node?.items();
  const m = node?.meta;
  const keys = m?.listMapKeys ?? (m?.patchMergeKey !== undefined ? [m.patchMergeKey] : []);
  const key: JsonObject = {};
  for (const k of [...keys].sort()) {
    let v = isObject(item) ? item[k] : undefined;
    if (v === undefined) v = itemNode?.defaultOf(k) as JsonValue | undefined;
    if (v !== undefined) key[k] = v;
  }
  return `k:${JSON.stringify(key)}`;
}

function refIndexItems(kind: Kind, node: ApplySchema | undefined, list: readonly JsonValue[]): Array<[string, JsonValue]> {
  return list.map((item) => [refItemElement(kind, node, item), item]);
}

function refChildNode(node: ApplySchema | undefined, kind: Kind, key: string): ApplySchema | undefined {
  if (kind === 'struct' || kind === 'map') return node?.field(key);
  return node?.items();
}

function refFullSet(v: JsonValue, node: ApplySchema | undefined, into: FieldSet): void {
  into.member = true;
  const kind = refKindOf(node, v);
  if ((kind === 'struct' || kind === 'map') && isObject(v)) {
    for (const [k, x] of Object.entries(v)) refFullSet(x, refChildNode(node, kind, k), into.child(`f:${k}`));
  } else if ((kind === 'listMap' || kind === 'listSet') && Array.isArray(v)) {
    const itemNode = node?.items();
    for (const [pe, item] of refIndexItems(kind, node, v)) {
      const c = into.child(pe);
      c.member = true;
      if (kind === 'listMap' && isObject(item) && refKindOf(itemNode, item) !== 'atomic') {
        for (const [k, x] of Object.entries(item)) refFullSet(x, itemNode?.field(k), c.child(`f:${k}`));
      }
    }
  }
}

function refCompareInto(o: JsonValue | undefined, n: JsonValue | undefined, node: ApplySchema | undefined, added: FieldSet, modified: FieldSet, removed: FieldSet, root: boolean): void {
  if (o === undefined && n === undefined) return;
  if (o === undefined) {
    refFullSet(n as JsonValue, node, added);
    if (root) added.member = false;
    return;
  }
  if (n === undefined) {
    refFullSet(o, node, removed);
    if (root) removed.member = false;
    return;
  }
  const kind = refKindOf(node, n ?? o);
  if (kind === 'struct' || kind === 'map') {
    if (!isObject(n) || (!isObject(o) && o !== null)) {
      if (!jsonEqual(o, n)) modified.member = true;
      return;
    }
    const ov = isObject(o) ? o : {};
    for (const k of new Set([...Object.keys(ov), ...Object.keys(n)])) {
      const pe = `f:${k}`;
      refCompareInto(ov[k], n[k], refChildNode(node, kind, k), added.child(pe), modified.child(pe), removed.child(pe), false);
    }
    return;
  }
  if (kind === 'listMap' || kind === 'listSet') {
    if (!Array.isArray(n) || (!Array.isArray(o) && o !== null)) {
      if (!jsonEqual(o, n)) modified.member = true;
      return;
    }
    const ol = new Map(refIndexItems(kind, node, Array.isArray(o) ? o : []));
    const nl = new Map(refIndexItems(kind, node, n));
    const itemNode = node?.items();
    for (const pe of new Set([...ol.keys(), ...nl.keys()])) {
      const a = ol.get(pe);
      const b = nl.get(pe);
      if (kind === 'listSet' || a === undefined || b === undefined) {
        if (a === undefined && b !== undefined) refFullSet(b, kind === 'listMap' ? itemNode : undefined, added.child(pe));
        else if (b === undefined && a !== undefined) refFullSet(a, kind === 'listMap' ? itemNode : undefined, removed.child(pe));
        continue;
      }
      refCompareInto(a, b, itemNode, added.child(pe), modified.child(pe), removed.child(pe), false);
    }
    return;
  }
  if (!jsonEqual(o, n)) modified.member = true;
}

function refDecode(mf: unknown): RefEntry[] {
  if (!Array.isArray(mf)) return [];
  const out: RefEntry[] = [];
  for (const e of mf) {
    if (!isObject(e)) continue;
    out.push({
      manager: typeof e['manager'] === 'string' ? e['manager'] : '',
      operation: e['operation'] === 'Apply' ? 'Apply' : 'Update',
      apiVersion: typeof e['apiVersion'] === 'string' ? e['apiVersion'] : '',
      time: typeof e['time'] === 'string' ? e['time'] : undefined,
      subresource: typeof e['subresource'] === 'string' && e['subresource'] !== '' ? e['subresource'] : undefined,
      set: FieldSet.fromFieldsV1(e['fieldsV1']),
    });
  }
  return out;
}

function refSeconds(t: string | undefined): number {
  return t === undefined ? 0 : Math.floor(Date.parse(t) / 1000);
}

function refEncode(entries: readonly RefEntry[]): JsonObject[] {
  const sorted = [...entries].sort((p, q) => {
    if (p.operation !== q.operation) return p.operation < q.operation ? -1 : 1;
    const ps = refSeconds(p.time);
    const qs = refSeconds(q.time);
    if (ps !== qs) return ps - qs;
    if (p.manager !== q.manager) return p.manager < q.manager ? -1 : 1;
    if (p.apiVersion !== q.apiVersion) return p.apiVersion < q.apiVersion ? -1 : 1;
    return (p.subresource ?? '') < (q.subresource ?? '') ? -1 : (p.subresource ?? '') > (q.subresource ?? '') ? 1 : 0;
  });
  return sorted.map((e) => {
    const out: JsonObject = { manager: e.manager, operation: e.operation, apiVersion: e.apiVersion };
    if (e.time !== undefined) out['time'] = e.time;
    out['fieldsType'] = 'FieldsV1';
    out['fieldsV1'] = refToFieldsV1(e.set);
    if (e.subresource !== undefined) out['subresource'] = e.subresource;
    return out;
  });
}

function refCapUpdateManagers(entries: RefEntry[]): RefEntry[] {
  const updaters = entries.filter((e) => e.operation === 'Update');
  if (updaters.length <= maxUpdateManagers) return entries;
  updaters.sort((a, b) => refSeconds(a.time) - refSeconds(b.time) || (a.manager < b.manager ? -1 : a.manager > b.manager ? 1 : 0));
  let out = [...entries];
  const firstByVersion = new Map<string, RefEntry>();
  const buckets = new Map<string, RefEntry>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > maxUpdateManagers; i++) {
    const e = updaters[i];
    if (!e) continue;
    const first = firstByVersion.get(e.apiVersion);
    if (!first) {
      firstByVersion.set(e.apiVersion, e);
      continue;
    }
    let bucket = buckets.get(e.apiVersion);
    if (!bucket) {
      bucket = { manager: 'ancient-changes', operation: 'Update', apiVersion: e.apiVersion, time: first.time, subresource: undefined, set: first.set };
      buckets.set(e.apiVersion, bucket);
      out = out.filter((x) => x !== first);
      out.push(bucket);
    }
    bucket.set = e.set.union(bucket.set);
    bucket.time = e.time;
    out = out.filter((x) => x !== e);
    length--;
  }
  return out;
}

const valueStructFields = new Set(['metadata', 'spec', 'status', 'template', 'strategy', 'updateStrategy', 'jobTemplate']);

function refZeroStruct(node: ApplySchema, depth: number): JsonObject {
  const out: JsonObject = {};
  if (depth > 6) return out;
  if (node.field('creationTimestamp') && node.field('managedFields')) out['creationTimestamp'] = null;
  for (const k of new Set([...node.required(), ...valueStructFields])) {
    const f = node.field(k);
    if (!f) continue;
    const required = node.required().includes(k);
    if (f.isStruct() && f.meta.mapType !== 'atomic') out[k] = refZeroStruct(f, depth + 1);
    else if (!required) continue;
    else if (f.isList() || f.isMap() || f.isStruct()) out[k] = null;
    else {
      const t = f.scalarType();
      out[k] = t === 'integer' || t === 'number' ? 0 : t === 'boolean' ? false : t === 'string' ? '' : null;
    }
  }
  return out;
}

function referenceUpdateManagedFields(old: JsonObject | undefined, updated: JsonObject, schema: ApplySchema | undefined, opts: ManagedFieldsOptions): JsonObject {
  const reset = opts.resetFields ?? [];
  const oldMeta = old?.['metadata'];
  const oldMF = isObject(oldMeta) ? oldMeta['managedFields'] : undefined;
  const newMF = isObject(updated['metadata']) ? updated['metadata']['managedFields'] : undefined;
  const entries = refDecode(newMF !== undefined && !jsonEqual(newMF, oldMF) ? newMF : oldMF);
  const added = new FieldSet();
  const modified = new FieldSet();
  const removed = new FieldSet();
  refCompareInto(refTracked(old ?? (schema ? refZeroStruct(schema, 0) : {}), reset), refTracked(updated, reset), schema, added, modified, removed, true);
  refStripMetadataMember(added);
  refStripMetadataMember(modified);
  refStripMetadataMember(removed);
  const changed = added.union(modified);
  const now = new Date(opts.now).toISOString().replace(/\.\d{3}Z$/, 'Z');
  let self = entries.find((e) => e.manager === opts.manager && e.operation === 'Update' && e.subresource === opts.subresource && e.apiVersion === opts.apiVersion);
  for (const e of entries) {
    if (e === self) continue;
    e.set = e.set.difference(changed).difference(removed);
  }
  if (!changed.isEmpty() || self) {
    if (!self) {
      self = { manager: opts.manager, operation: 'Update', apiVersion: opts.apiVersion, time: now, subresource: opts.subresource, set: new FieldSet() };
      entries.push(self);
    }
    const next = self.set.difference(removed).union(changed);
    if (!changed.isEmpty()) self.time = now;
    self.set = next;
  }
  const out = structuredClone(updated);
  const meta = isObject(out['metadata']) ? out['metadata'] : {};
  const live = refCapUpdateManagers(entries.filter((e) => !e.set.isEmpty()));
  if (live.length > 0) meta['managedFields'] = refEncode(live);
  else delete meta['managedFields'];
  out['metadata'] = meta;
  return out;
}

function referenceMergePatch(doc: JsonValue, patch: JsonValue): JsonValue {
  if (!isObject(patch)) return structuredClone(patch);
  const target = isObject(doc) ? structuredClone(doc) : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete target[k];
    else target[k] = referenceMergePatch(target[k] ?? null, v);
  }
  return target;
}

// ---- fixtures ----

const api = new OpenApi();
const schemas = {
  Pod: api.nodeFor({ group: '', version: 'v1', kind: 'Pod' }),
  Node: api.nodeFor({ group: '', version: 'v1', kind: 'Node' }),
  Lease: api.nodeFor({ group: 'coordination.k8s.io', version: 'v1', kind: 'Lease' }),
  Service: api.nodeFor({ group: '', version: 'v1', kind: 'Service' }),
  Deployment: api.nodeFor({ group: 'apps', version: 'v1', kind: 'Deployment' }),
  Event: api.nodeFor({ group: '', version: 'v1', kind: 'Event' }),
};
const t0 = Date.parse('2026-11-22T04:23:08Z');
const mainReset = [['status']];
const statusReset = [['spec'], ['metadata']];

function pod(): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'kube-proxy-x7k2p',
      generateName: 'kube-proxy-',
      namespace: 'kube-system',
      uid: '0c9a3f8e-1d2b-4c5d-8e9f-0a1b2c3d4e5f',
      resourceVersion: '812',
      creationTimestamp: '2026-11-22T04:23:08Z',
      labels: { 'controller-revision-hash': '6d4b8f9c7', 'k8s-app': 'kube-proxy', 'pod-template-generation': '1' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'kube-proxy', uid: 'a8b85b13-8b6a-4227-aaa2-82d0afc129d7', controller: true, blockOwnerDeletion: true }],
      finalizers: ['example.com/keep'],
    },
    spec: {
      containers: [
        {
          name: 'kube-proxy',
          image: 'registry.k8s.io/kube-proxy:v1.32.0',
          command: ['/usr/local/bin/kube-proxy', '--config=/var/lib/kube-proxy/config.conf'],
          env: [{ name: 'NODE_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'spec.nodeName' } } }],
          ports: [{ containerPort: 10249, name: 'metrics' }],
          resources: {},
          volumeMounts: [
            { name: 'kube-proxy', mountPath: '/var/lib/kube-proxy' },
            { name: 'lib-modules', mountPath: '/lib/modules', readOnly: true },
          ],
          securityContext: { privileged: true },
          imagePullPolicy: 'IfNotPresent',
        },
      ],
      volumes: [
        { name: 'kube-proxy', configMap: { name: 'kube-proxy', defaultMode: 420 } },
        { name: 'lib-modules', hostPath: { path: '/lib/modules', type: '' } },
      ],
      nodeName: 'linux-amd64-a-1',
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      tolerations: [{ operator: 'Exists' }],
      hostNetwork: true,
      priority: 2000001000,
    },
    status: {
      phase: 'Pending',
      qosClass: 'BestEffort',
      conditions: [{ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-11-22T04:23:08Z' }],
    },
  };
}

function podRunning(): JsonObject {
  const p = pod();
  p['status'] = {
    phase: 'Running',
    qosClass: 'BestEffort',
    conditions: [
      { type: 'PodReadyToStartContainers', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-11-22T04:23:09Z' },
      { type: 'Initialized', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-11-22T04:23:08Z' },
      { type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-11-22T04:23:10Z' },
      { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-11-22T04:23:08Z' },
    ],
    hostIP: '127.0.1.6',
    hostIPs: [{ ip: '127.0.1.6' }],
    podIP: '127.0.1.6',
    podIPs: [{ ip: '127.0.1.6' }],
    startTime: '2026-11-22T04:23:08Z',
    containerStatuses: [
      { name: 'kube-proxy', state: { running: { startedAt: '2026-11-22T04:23:09Z' } }, lastState: {}, ready: true, restartCount: 0, image: 'registry.k8s.io/kube-proxy:v1.32.0', imageID: '', started: true },
    ],
  };
  return p;
}

function node(heartbeat: string, ready: boolean): JsonObject {
  const condition = (type: string, status: string, reason: string, message: string): JsonObject => ({
    type,
    status,
    lastHeartbeatTime: heartbeat,
    lastTransitionTime: '2026-11-22T04:23:07Z',
    reason,
    message,
  });
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: 'linux-amd64-b-1',
      uid: '44d3ad42-049a-3fd6-ffd4-7796378d8b79',
      resourceVersion: '95',
      creationTimestamp: '2026-11-22T04:23:07Z',
      labels: { 'kubernetes.io/arch': 'amd64', 'kubernetes.io/hostname': 'linux-amd64-b-1', 'kubernetes.io/os': 'linux', 'topology.kubernetes.io/zone': 'zone-b' },
      annotations: { 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
    },
    spec: { podCIDR: '10.244.6.0/24', podCIDRs: ['10.244.6.0/24'], taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }] },
    status: {
      capacity: { cpu: '8', memory: '32Gi', pods: '110' },
      allocatable: { cpu: '8', memory: '32Gi', pods: '110' },
      conditions: [
        condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
        condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
        condition('Ready', ready ? 'True' : 'False', ready ? 'KubeletReady' : 'KubeletNotReady', ready ? 'kubelet is posting ready status' : 'container runtime network not ready'),
      ],
      addresses: [
        { type: 'InternalIP', address: '127.0.1.7' },
        { type: 'Hostname', address: 'linux-amd64-b-1' },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: { machineID: 'c07ad04a', systemUUID: '44d3ad42', bootID: '353be307', kernelVersion: '5.15.0', osImage: 'Ubuntu 22.04.4 LTS', containerRuntimeVersion: 'containerd://1.7.22', kubeletVersion: 'v1.32.0', kubeProxyVersion: 'v1.32.0', operatingSystem: 'linux', architecture: 'amd64' },
      images: [
        { names: ['registry.k8s.io/pause:3.10'], sizeBytes: 320368 },
        { names: ['registry.k8s.io/kube-proxy:v1.32.0'], sizeBytes: 30907366 },
      ],
    },
  };
}

function lease(renewTime: string, holder = 'linux-amd64-b-1'): JsonObject {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name: 'linux-amd64-b-1',
      namespace: 'kube-node-lease',
      uid: '9d1c2b3a-4e5f-6a7b-8c9d-0e1f2a3b4c5d',
      resourceVersion: '120',
      creationTimestamp: '2026-11-22T04:23:07Z',
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'linux-amd64-b-1', uid: '7feca621-4e5b-4894-a96e-b6ae21ce6725' }],
    },
    spec: { holderIdentity: holder, leaseDurationSeconds: 40, renewTime },
  };
}

function withMF(obj: JsonObject, managedFields: JsonValue): JsonObject {
  const o = structuredClone(obj);
  (o['metadata'] as JsonObject)['managedFields'] = managedFields;
  return o;
}

function edit(obj: JsonObject, f: (o: JsonObject) => void): JsonObject {
  const o = structuredClone(obj);
  f(o);
  return o;
}

function obj(o: JsonObject, ...keys: string[]): JsonObject {
  let cur = o;
  for (const k of keys) cur = cur[k] as JsonObject;
  return cur;
}

function list(o: JsonObject, ...keys: string[]): JsonValue[] {
  const last = keys.pop() ?? '';
  return obj(o, ...keys)[last] as JsonValue[];
}

/** One write: the live object (undefined for a create), the written one, and who wrote it through which endpoint. */
interface Write {
  name: string;
  kind: keyof typeof schemas | 'Custom';
  old: JsonObject | undefined;
  updated: JsonObject;
  manager: string;
  subresource?: string;
  apiVersion?: string;
  now?: number;
}

function optsOf(w: Write): ManagedFieldsOptions {
  const status = w.subresource === 'status';
  return {
    manager: w.manager,
    apiVersion: w.apiVersion ?? 'v1',
    ...(w.subresource !== undefined ? { subresource: w.subresource } : {}),
    now: w.now ?? t0 + 1000,
    resetFields: w.kind === 'Lease' || w.kind === 'Event' || w.kind === 'Custom' ? [] : status ? statusReset : mainReset,
  };
}

function schemaOf(w: Write): ApplySchema | undefined {
  return w.kind === 'Custom' ? undefined : schemas[w.kind];
}

/** Runs a write through both and compares the JSON text; returns the result for chaining. */
function check(w: Write): JsonObject {
  const oldText = JSON.stringify(w.old);
  const updatedText = JSON.stringify(w.updated);
  let want: JsonObject;
  try {
    want = referenceUpdateManagedFields(structuredClone(w.old), structuredClone(w.updated), schemaOf(w), optsOf(w));
  } catch (e) {
    // Malformed managedFields in a request fail the same way.
    assert.throws(() => updateManagedFields(w.old, w.updated, schemaOf(w), optsOf(w)), { message: (e as Error).message }, w.name);
    return w.old ?? w.updated;
  }
  const got = updateManagedFields(w.old, w.updated, schemaOf(w), optsOf(w));
  assert.equal(JSON.stringify(got), JSON.stringify(want), w.name);
  assert.equal(JSON.stringify(w.old), oldText, `${w.name}: the live object is not changed`);
  assert.equal(JSON.stringify(w.updated), updatedText, `${w.name}: the written object is not changed`);
  return got;
}

/** Creates `obj` as `manager` and returns the stored result, the live object of the next write. */
function created(kind: Write['kind'], o: JsonObject, manager: string, apiVersion = 'v1'): JsonObject {
  return check({ name: `create ${kind}`, kind, old: undefined, updated: o, manager, apiVersion, now: t0 });
}

const podLive = (): JsonObject => {
  const p = created('Pod', pod(), 'kube-controller-manager');
  return check({ name: 'bind', kind: 'Pod', old: p, updated: edit(p, (o) => (obj(o, 'status')['phase'] = 'Pending')), manager: 'kube-scheduler', subresource: 'status' });
};
const nodeLive = (): JsonObject => {
  const n = created('Node', node('2026-11-22T04:23:07Z', false), 'node-host');
  return check({ name: 'first status', kind: 'Node', old: n, updated: edit(n, (o) => (obj(o, 'status', 'conditions', '0')['reason'] = 'x')), manager: 'node-host', subresource: 'status' });
};
const leaseLive = (): JsonObject => created('Lease', lease('2026-11-22T04:23:07.000000Z'), 'node-host', 'coordination.k8s.io/v1');

const cases: Array<{ name: string; write: () => Write }> = [
  {
    name: 'the kubelet writes a starting pod status (conditions added, container statuses, IPs)',
    write: () => {
      const live = podLive();
      return { name: 'kubelet status', kind: 'Pod', old: live, updated: edit(podRunning(), (o) => (obj(o, 'metadata')['managedFields'] = obj(live, 'metadata')['managedFields'] ?? null)), manager: 'node-host', subresource: 'status' };
    },
  },
  {
    name: 'a status write cannot change spec or metadata (reset paths are not owned)',
    write: () => {
      const live = podLive();
      return {
        name: 'status with spec',
        kind: 'Pod',
        old: live,
        updated: edit(live, (o) => {
          obj(o, 'spec')['nodeName'] = 'elsewhere';
          obj(o, 'metadata', 'labels')['new'] = 'x';
          obj(o, 'status')['phase'] = 'Running';
        }),
        manager: 'node-host',
        subresource: 'status',
      };
    },
  },
  {
    name: 'an update through the main resource: labels, a container image, a list-map item keyed by a defaulted protocol, a removed volume',
    write: () => {
      const live = podLive();
      return {
        name: 'main update',
        kind: 'Pod',
        old: live,
        updated: edit(live, (o) => {
          obj(o, 'metadata', 'labels')['tier'] = 'node';
          delete obj(o, 'metadata', 'labels')['pod-template-generation'];
          const c = list(o, 'spec', 'containers')[0] as JsonObject;
          c['image'] = 'registry.k8s.io/kube-proxy:v1.32.1';
          (c['ports'] as JsonValue[]).push({ containerPort: 10256, name: 'healthz', protocol: 'TCP' });
          list(o, 'spec', 'volumes').pop();
          obj(o, 'status')['phase'] = 'Failed';
        }),
        manager: 'kubectl-edit',
      };
    },
  },
  {
    name: 'a set (finalizers) and an atomic list (tolerations, command) change',
    write: () => {
      const live = podLive();
      return {
        name: 'sets',
        kind: 'Pod',
        old: live,
        updated: edit(live, (o) => {
          list(o, 'metadata', 'finalizers').push('example.com/other');
          list(o, 'spec', 'tolerations').push({ key: 'k', operator: 'Exists' });
          ((list(o, 'spec', 'containers')[0] as JsonObject)['command'] as JsonValue[]).pop();
        }),
        manager: 'kube-controller-manager',
      };
    },
  },
  {
    name: 'fields set to null, emptied maps and lists, and an object replacing null',
    write: () => {
      const live = podLive();
      return {
        name: 'nulls',
        kind: 'Pod',
        old: live,
        updated: edit(live, (o) => {
          obj(o, 'spec')['nodeSelector'] = {};
          obj(o, 'spec')['tolerations'] = [];
          obj(o, 'spec')['hostNetwork'] = null;
          obj(o, 'metadata')['labels'] = null;
          (list(o, 'spec', 'containers')[0] as JsonObject)['resources'] = { limits: { cpu: '1' } };
        }),
        manager: 'kubectl',
      };
    },
  },
  {
    name: 'null to object and object to null at the root and in metadata',
    write: () => {
      const live = edit(podLive(), (o) => {
        obj(o, 'metadata')['annotations'] = null;
        obj(o, 'spec')['affinity'] = null;
      });
      return {
        name: 'null to object',
        kind: 'Pod',
        old: live,
        updated: edit(live, (o) => {
          obj(o, 'metadata')['annotations'] = { a: 'b' };
          obj(o, 'spec')['affinity'] = { nodeAffinity: {} };
          o['spec'] = { ...obj(o, 'spec'), dnsConfig: null };
        }),
        manager: 'kubectl',
      };
    },
  },
  {
    name: 'the node status heartbeat (only lastHeartbeatTime moves)',
    write: () => {
      const live = nodeLive();
      return {
        name: 'heartbeat',
        kind: 'Node',
        old: live,
        updated: edit(live, (o) => {
          for (const c of list(o, 'status', 'conditions')) (c as JsonObject)['lastHeartbeatTime'] = '2026-11-22T04:23:48Z';
        }),
        manager: 'node-host',
        subresource: 'status',
        now: t0 + 40_000,
      };
    },
  },
  {
    name: 'the node turns Ready, pulls an image (atomic list) and loses an address',
    write: () => {
      const live = nodeLive();
      return {
        name: 'ready',
        kind: 'Node',
        old: live,
        updated: edit(node('2026-11-22T04:23:48Z', true), (o) => {
          obj(o, 'metadata')['managedFields'] = obj(live, 'metadata')['managedFields'] ?? null;
          list(o, 'status', 'images').push({ names: ['nginx:1.27'], sizeBytes: 1 });
          list(o, 'status', 'addresses').pop();
        }),
        manager: 'node-host',
        subresource: 'status',
      };
    },
  },
  {
    name: 'the node lifecycle controller taints the node (main resource, another manager)',
    write: () => {
      const live = nodeLive();
      return {
        name: 'taint',
        kind: 'Node',
        old: live,
        updated: edit(live, (o) => list(o, 'spec', 'taints').push({ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: '2026-11-22T04:24:00Z' })),
        manager: 'kube-controller-manager',
      };
    },
  },
  {
    name: 'a lease renew (the owner keeps its fields, the time moves)',
    write: () => {
      const live = leaseLive();
      return { name: 'renew', kind: 'Lease', old: live, updated: edit(live, (o) => (obj(o, 'spec')['renewTime'] = '2026-11-22T04:23:17.000000Z')), manager: 'node-host', apiVersion: 'coordination.k8s.io/v1', now: t0 + 10_000 };
    },
  },
  {
    name: 'a lease taken over by another holder (fields change hands)',
    write: () => {
      const live = leaseLive();
      return { name: 'takeover', kind: 'Lease', old: live, updated: edit(lease('2026-11-22T04:24:00.000000Z', 'other'), (o) => (obj(o, 'metadata')['managedFields'] = obj(live, 'metadata')['managedFields'] ?? null)), manager: 'kube-controller-manager', apiVersion: 'coordination.k8s.io/v1' };
    },
  },
  {
    name: 'a write that changes nothing keeps the entries and their times',
    write: () => {
      const live = nodeLive();
      return { name: 'no-op', kind: 'Node', old: live, updated: structuredClone(live), manager: 'node-host', subresource: 'status', now: t0 + 99_000 };
    },
  },
  {
    name: 'a write by a new manager that changes nothing adds no entry',
    write: () => {
      const live = leaseLive();
      return { name: 'no-op other', kind: 'Lease', old: live, updated: structuredClone(live), manager: 'someone', apiVersion: 'coordination.k8s.io/v1' };
    },
  },
  {
    name: 'managedFields sent with the request replace the live ones (and are written in canonical form)',
    write: () => {
      const live = leaseLive();
      return {
        name: 'replace',
        kind: 'Lease',
        old: live,
        updated: withMF(edit(live, (o) => (obj(o, 'spec')['leaseDurationSeconds'] = 41)), [
          { manager: 'b', operation: 'Update', apiVersion: 'coordination.k8s.io/v1', time: '2026-11-22T04:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:renewTime': {}, 'f:holderIdentity': {} } } },
          { manager: 'a', operation: 'Update', apiVersion: 'coordination.k8s.io/v1', time: '2026-11-22T04:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { '.': {} } } },
          { manager: 'c', operation: 'Apply', apiVersion: 'coordination.k8s.io/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:x': true } }, 'f:spec': { 'f:leaseDurationSeconds': {}, '.': {} } } },
          { manager: 'd', operation: 'Update', apiVersion: 'coordination.k8s.io/v1', time: '2026-11-22T03:00:00Z', fieldsType: 'FieldsV1', fieldsV1: {} },
          { manager: 'e', operation: 'Update', apiVersion: 'coordination.k8s.io/v1', time: '2026-11-22T03:00:00Z', subresource: '', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:holderIdentity': { '.': { x: 1 } } } } },
          'not an entry',
        ]),
        manager: 'node-host',
        apiVersion: 'coordination.k8s.io/v1',
      };
    },
  },
  {
    name: 'untouched non-canonical entries are still written in canonical form',
    write: () => {
      const live = withMF(lease('2026-11-22T04:23:07.000000Z'), [
        { manager: 'x', operation: 'Update', apiVersion: 'coordination.k8s.io/v1', time: '2026-11-22T04:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:ownerReferences': { 'k:{"uid":"b"}': {}, 'k:{"uid":"a"}': {}, '.': {} } } } },
        { manager: 'node-host', operation: 'Update', apiVersion: 'coordination.k8s.io/v1', time: '2026-11-22T04:00:01Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:renewTime': {}, 'f:holderIdentity': {}, 'f:leaseDurationSeconds': {} } } },
      ]);
      return { name: 'non-canonical', kind: 'Lease', old: live, updated: edit(live, (o) => (obj(o, 'spec')['renewTime'] = '2026-11-22T04:23:17.000000Z')), manager: 'node-host', apiVersion: 'coordination.k8s.io/v1' };
    },
  },
  {
    name: 'more than ten updaters are merged into ancient-changes',
    write: () => {
      let live = leaseLive();
      for (let i = 0; i < maxUpdateManagers + 2; i++) {
        live = check({ name: `manager ${i}`, kind: 'Lease', old: live, updated: edit(live, (o) => ((obj(o, 'metadata')['labels'] = { ...obj(o, 'metadata')['labels'] as JsonObject, [`l${i}`]: 'x' }))), manager: `m${i}`, apiVersion: 'coordination.k8s.io/v1', now: t0 + i * 1000 });
      }
      return { name: 'cap', kind: 'Lease', old: live, updated: edit(live, (o) => (obj(o, 'spec')['renewTime'] = 'later')), manager: 'node-host', apiVersion: 'coordination.k8s.io/v1', now: t0 + 60_000 };
    },
  },
  {
    name: 'an object without a schema (custom resource): nested maps and atomic lists',
    write: () => {
      const cr: JsonObject = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' }, spec: { size: 3, parts: [{ name: 'a' }], labels: { x: 'y' } }, status: { ok: true } };
      const live = created('Custom', cr, 'kubectl', 'example.com/v1');
      return {
        name: 'custom',
        kind: 'Custom',
        old: live,
        updated: edit(live, (o) => {
          obj(o, 'spec')['parts'] = [{ name: 'a' }, { name: 'b' }];
          delete obj(o, 'spec', 'labels')['x'];
          obj(o, 'status')['ok'] = false;
        }),
        manager: 'widget-controller',
        apiVersion: 'example.com/v1',
      };
    },
  },
  {
    name: 'a create with managedFields in the request',
    write: () => ({
      name: 'create with mf',
      kind: 'Event',
      old: undefined,
      updated: withMF(
        { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e.1', namespace: 'default' }, involvedObject: { kind: 'Pod', name: 'p' }, reason: 'Started', message: 'ok', type: 'Normal', count: 1 },
        [{ manager: 'old', operation: 'Update', apiVersion: 'v1', time: '2026-11-22T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:reason': {}, 'f:note': {} } }],
      ),
      manager: 'kubelet',
    }),
  },
  {
    name: 'a create whose request managedFields own parts of the zero object the new object lacks',
    write: () => ({
      name: 'create removes from zero',
      kind: 'Deployment',
      old: undefined,
      updated: withMF({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { selector: { matchLabels: { app: 'web' } }, template: { spec: { containers: [{ name: 'c', image: 'i' }] } } } }, [
        { manager: 'm', operation: 'Update', apiVersion: 'apps/v1', time: '2026-11-22T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:strategy': {}, 'f:replicas': {} }, 'f:status': {} } },
      ]),
      manager: 'kubectl',
      apiVersion: 'apps/v1',
    }),
  },
];

for (const tc of cases) {
  void test(`updateManagedFields equals the reference: ${tc.name}`, () => {
    check(tc.write());
  });
}

// ---- random writes ----

/** A small deterministic generator (mulberry32), so a failure reproduces. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomValue(r: () => number, depth: number): JsonValue {
  const x = r();
  if (x < 0.2) return null;
  if (x < 0.35) return Math.floor(r() * 5);
  if (x < 0.45) return r() < 0.5;
  if (x < 0.7 || depth > 2) return ['a', 'b', 'TCP', 'UDP', 'Ready'][Math.floor(r() * 5)] ?? 'a';
  if (x < 0.85) {
    const o: JsonObject = {};
    for (const k of ['name', 'type', 'key', 'value', 'containerPort', 'protocol', 'ip'].filter(() => r() < 0.4)) o[k] = randomValue(r, depth + 1);
    return o;
  }
  const n = Math.floor(r() * 3);
  return Array.from({ length: n }, () => randomValue(r, depth + 1));
}

/** Changes one random place of `o`: a value replaced, a key removed or added, a list item added, removed or changed. */
function mutate(o: JsonValue, r: () => number, depth = 0): JsonValue {
  if (Array.isArray(o)) {
    const i = Math.floor(r() * (o.length + 1));
    const x = r();
    if (i < o.length && x < 0.6) o[i] = mutate(o[i] ?? null, r, depth + 1);
    else if (i < o.length && x < 0.8) o.splice(i, 1);
    else o.push(r() < 0.5 && o.length > 0 ? structuredClone(o[0] ?? null) : randomValue(r, depth));
    return o;
  }
  if (isObject(o)) {
    const keys = Object.keys(o).filter((k) => depth > 0 || (k !== 'apiVersion' && k !== 'kind'));
    const k = keys[Math.floor(r() * keys.length)];
    const x = r();
    if (k !== undefined && x < 0.7) o[k] = mutate(o[k] ?? null, r, depth + 1);
    else if (k !== undefined && x < 0.85) delete o[k];
    else o[['extra', 'labels', 'name', 'key', 'type'][Math.floor(r() * 5)] ?? 'extra'] = randomValue(r, depth + 1);
    return o;
  }
  return r() < 0.7 ? randomValue(r, depth + 3) : o;
}

const starts: Array<{ kind: Write['kind']; obj: () => JsonObject; apiVersion: string }> = [
  { kind: 'Pod', obj: podRunning, apiVersion: 'v1' },
  { kind: 'Node', obj: () => node('2026-11-22T04:23:07Z', true), apiVersion: 'v1' },
  { kind: 'Lease', obj: () => lease('2026-11-22T04:23:07.000000Z'), apiVersion: 'coordination.k8s.io/v1' },
  { kind: 'Deployment', obj: () => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', labels: { app: 'web' } }, spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx', ports: [{ containerPort: 80 }] }] } } }, status: { replicas: 2 } }), apiVersion: 'apps/v1' },
  { kind: 'Service', obj: () => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }, { port: 443, protocol: 'TCP' }] } }), apiVersion: 'v1' },
  { kind: 'Custom', obj: () => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { a: { b: [1, 2] }, c: 'd' } }), apiVersion: 'example.com/v1' },
];
const managers = ['node-host', 'kube-controller-manager', 'kubectl', 'kube-scheduler'];

void test('updateManagedFields equals the reference over chains of random writes by several managers', () => {
  for (const start of starts) {
    for (let seed = 1; seed <= 12; seed++) {
      const r = rng(seed * 7919 + start.kind.length);
      let live = created(start.kind, start.obj(), 'kube-controller-manager', start.apiVersion);
      let now = t0;
      for (let step = 0; step < 25; step++) {
        const next = structuredClone(live);
        for (let m = 1 + Math.floor(r() * 3); m > 0; m--) mutate(next, r);
        if (!isObject(next['metadata'])) next['metadata'] = { name: 'x' };
        const mf = obj(next, 'metadata')['managedFields'];
        if (r() < 0.05) delete obj(next, 'metadata')['managedFields'];
        else if (r() < 0.15 && Array.isArray(mf)) mutate(mf, r);
        now += Math.floor(r() * 3) * 1000;
        live = check({
          name: `${start.kind} seed ${seed} step ${step}`,
          kind: start.kind,
          old: live,
          updated: next,
          manager: managers[Math.floor(r() * managers.length)] ?? 'kubectl',
          ...(r() < 0.4 && start.kind !== 'Lease' && start.kind !== 'Custom' ? { subresource: 'status' } : {}),
          apiVersion: start.apiVersion,
          now,
        });
      }
    }
  }
});

void test('updateManagedFields equals the reference for random creates (zero values, empty structs, request managedFields)', () => {
  const deploymentWithZeros = (): JsonObject => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', creationTimestamp: null },
    spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, strategy: {}, template: { metadata: { creationTimestamp: null, labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx', resources: {} }] } } },
    status: {},
  });
  const all = [...starts, { kind: 'Deployment' as const, obj: deploymentWithZeros, apiVersion: 'apps/v1' }];
  for (const start of all) {
    for (let seed = 1; seed <= 40; seed++) {
      const r = rng(seed * 104729 + start.kind.length);
      const o = start.obj();
      for (let m = Math.floor(r() * 4); m > 0; m--) mutate(o, r);
      if (!isObject(o['metadata'])) o['metadata'] = { name: 'x' };
      if (r() < 0.2) obj(o, 'metadata')['managedFields'] = [{ manager: 'm', operation: 'Update', apiVersion: start.apiVersion, time: '2026-11-22T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {}, 'f:template': {} }, 'f:status': {} } }];
      check({ name: `create ${start.kind} seed ${seed}`, kind: start.kind, old: undefined, updated: o, manager: 'kubectl', apiVersion: start.apiVersion, now: t0 });
    }
  }
});

void test('rfc3339 writes what toISOString writes, without the milliseconds', () => {
  const r = rng(3339);
  const times = [0, -1, 999, 1000, 86_399_999, 951_782_400_000, 951_868_800_000, 253_402_300_799_999, 253_402_300_800_000, -62_167_219_200_000, -62_167_219_200_001, 1.5, t0];
  for (let i = 0; i < 20_000; i++) times.push(Math.floor((r() * 2 - 1) * 2.6e14));
  for (const ms of times) assert.equal(rfc3339(ms), new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z'), String(ms));
});

// ---- merge patch ----

void test('applyMergePatch equals the reference and leaves the document and the patch unchanged', () => {
  const r = rng(42);
  for (let i = 0; i < 400; i++) {
    const doc = [podRunning, () => node('h', true), () => lease('t')][i % 3]?.() ?? {};
    const patch = mutate(mutate(structuredClone(doc), r), r);
    if (isObject(patch) && r() < 0.3) patch['status'] = null;
    const docText = JSON.stringify(doc);
    const patchText = JSON.stringify(patch);
    const got = applyMergePatch(doc, patch);
    assert.equal(JSON.stringify(got), JSON.stringify(referenceMergePatch(structuredClone(doc), structuredClone(patch))));
    assert.equal(JSON.stringify(doc), docText);
    assert.equal(JSON.stringify(patch), patchText);
    // The result never shares a value with the patch: changing it cannot change a patch applied again.
    mutate(got, r);
    assert.equal(JSON.stringify(patch), patchText);
  }
});
