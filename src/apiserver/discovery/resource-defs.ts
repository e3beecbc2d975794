/**
 * The resources the API server serves, with the discovery facts kubectl relies on (verbs, short names,
 * categories, singular names, storage version hashes, subresources). The facts come from what a real 1.32
 * kube-apiserver answered (`data/`, copied from shared/fixtures); the list of what kubemix serves is ours.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sourcePath } from '../../util/paths.js';
import type { ResourceType } from '../../api/resources.js';

export interface SubresourceDef {
  readonly name: string;
  readonly kind: string;
  /** Set when the subresource answers a kind of another group (e.g. scale: autoscaling/v1 Scale). */
  readonly group?: string;
  readonly version?: string;
  readonly verbs: readonly string[];
}

export interface ResourceDef extends ResourceType {
  readonly singularName: string;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly verbs: readonly string[];
  readonly storageVersionHash?: string;
  readonly subresources: ReadonlyMap<string, SubresourceDef>;
  /** Storage key prefix, ending in `/`: `/registry/pods/`, `/registry/apps/deployments/`. */
  readonly keyPrefix: string;
  /** Virtual resources (reviews) are created and answered, never stored. */
  readonly virtual: boolean;
  /** Defined by a CustomResourceDefinition. */
  readonly custom: boolean;
}

interface DiscoveryResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  kind: string;
  group?: string;
  version?: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  storageVersionHash?: string;
}

interface DiscoveryList {
  groupVersion: string;
  resources: DiscoveryResource[];
}

/** What kubemix serves of each group/version: resource -> served subresources. */
const served: Record<string, Record<string, readonly string[]>> = {
  v1: {
    bindings: [],
    componentstatuses: [],
    configmaps: [],
    endpoints: [],
    events: [],
    limitranges: [],
    namespaces: ['finalize', 'status'],
    nodes: ['status'],
    persistentvolumeclaims: ['status'],
    persistentvolumes: ['status'],
    pods: ['attach', 'binding', 'eviction', 'exec', 'log', 'portforward', 'status'],
    podtemplates: [],
    replicationcontrollers: ['scale', 'status'],
    resourcequotas: ['status'],
    secrets: [],
    serviceaccounts: ['token'],
    services: ['status'],
  },
  'apps/v1': {
    controllerrevisions: [],
    daemonsets: ['status'],
    deployments: ['scale', 'status'],
    replicasets: ['scale', 'status'],
    statefulsets: ['scale', 'status'],
  },
  // Not in the captured fixtures: written from the 1.32 API (SelfSubjectReview is GA since 1.28).
  'authentication.k8s.io/v1': { selfsubjectreviews: [], tokenreviews: [] },
  'authorization.k8s.io/v1': {
    localsubjectaccessreviews: [],
    selfsubjectaccessreviews: [],
    selfsubjectrulesreviews: [],
    subjectaccessreviews: [],
  },
  'autoscaling/v2': { horizontalpodautoscalers: ['status'] },
  // Not in the captured fixtures: written from the 1.32 API (served beside v2 over the same storage).
  'autoscaling/v1': { horizontalpodautoscalers: ['status'] },
  'batch/v1': { cronjobs: ['status'], jobs: ['status'] },
  'certificates.k8s.io/v1': { certificatesigningrequests: ['approval', 'status'] },
  'coordination.k8s.io/v1': { leases: [] },
  'discovery.k8s.io/v1': { endpointslices: [] },
  'events.k8s.io/v1': { events: [] },
  'networking.k8s.io/v1': { ingressclasses: [], ingresses: ['status'], networkpolicies: [] },
  'node.k8s.io/v1': { runtimeclasses: [] },
  'policy/v1': { poddisruptionbudgets: ['status'] },
  'rbac.authorization.k8s.io/v1': { clusterrolebindings: [], clusterroles: [], rolebindings: [], roles: [] },
  'scheduling.k8s.io/v1': { priorityclasses: [] },
  'storage.k8s.io/v1': { csidrivers: [], csinodes: [], csistoragecapacities: [], storageclasses: [], volumeattachments: ['status'] },
  'apiextensions.k8s.io/v1': { customresourcedefinitions: ['status'] },
  // Written from the 1.32 server's aggregated discovery (the fixtures hold no per-group document for these),
  // with the storage version hashes as kube-apiserver computes them (sha256 of group/version/Kind, 8 bytes).
  'admissionregistration.k8s.io/v1': {
    mutatingwebhookconfigurations: [],
    validatingadmissionpolicies: ['status'],
    validatingadmissionpolicybindings: [],
    validatingwebhookconfigurations: [],
  },
  'apiregistration.k8s.io/v1': { apiservices: ['status'] },
  'flowcontrol.apiserver.k8s.io/v1': { flowschemas: ['status'], prioritylevelconfigurations: ['status'] },
};

const virtualGroups = new Set(['authorization.k8s.io', 'authentication.k8s.io']);

function dataFile(groupVersion: string): string {
  return groupVersion === 'v1' ? 'api_v1.json' : `apis_${groupVersion.replace('/', '_')}.json`;
}

/** Storage key prefix as kube-apiserver lays it out (group-less, plural): `/registry/<resource>/`. */
export function keyPrefixFor(group: string, resource: string, custom: boolean): string {
  return custom ? `/registry/${group}/${resource}/` : `/registry/${resource}/`;
}

function loadBuiltins(): ResourceDef[] {
  const dir = sourcePath('apiserver', 'discovery', 'data');
  const defs: ResourceDef[] = [];
  for (const [gv, resourcesServed] of Object.entries(served)) {
    const list = JSON.parse(readFileSync(join(dir, dataFile(gv)), 'utf8')) as DiscoveryList;
    const [group, version] = gv.includes('/') ? (gv.split('/') as [string, string]) : ['', gv];
    for (const [name, subs] of Object.entries(resourcesServed)) {
      const main = list.resources.find((r) => r.name === name);
      if (main === undefined) throw new Error(`discovery data for ${gv} has no resource ${name}`);
      const subresources = new Map<string, SubresourceDef>();
      for (const sub of subs) {
        const d = list.resources.find((r) => r.name === `${name}/${sub}`);
        if (d === undefined) throw new Error(`discovery data for ${gv} has no subresource ${name}/${sub}`);
        const sd: { name: string; kind: string; verbs: string[]; group?: string; version?: string } = {
          name: sub,
          kind: d.kind,
          verbs: d.verbs,
        };
        if (d.group !== undefined) sd.group = d.group;
        if (d.version !== undefined) sd.version = d.version;
        subresources.set(sub, sd);
      }
      const def: ResourceDef = {
        group,
        version,
        resource: name,
        kind: main.kind,
        namespaced: main.namespaced,
        singularName: main.singularName,
        shortNames: main.shortNames ?? [],
        categories: main.categories ?? [],
        verbs: main.verbs,
        ...(main.storageVersionHash !== undefined ? { storageVersionHash: main.storageVersionHash } : {}),
        subresources,
        keyPrefix: keyPrefixFor(group, name, false),
        virtual: virtualGroups.has(group),
        custom: false,
      };
      defs.push(def);
    }
  }
  return defs;
}

/** The table of served resources; CRDs add and remove entries at run time. */
export class ResourceTable {
  private readonly byGvr = new Map<string, ResourceDef>();
  private listeners: (() => void)[] = [];

  constructor(defs: readonly ResourceDef[] = loadBuiltins()) {
    for (const d of defs) this.add(d);
  }

  private static id(group: string, version: string, resource: string): string {
    return `${group}/${version}/${resource}`;
  }

  add(def: ResourceDef): void {
    this.byGvr.set(ResourceTable.id(def.group, def.version, def.resource), def);
    for (const l of this.listeners) l();
  }

  remove(group: string, version: string, resource: string): void {
    if (this.byGvr.delete(ResourceTable.id(group, version, resource))) for (const l of this.listeners) l();
  }

  /** Called whenever the table changes (discovery caches rebuild). */
  onChange(fn: () => void): void {
    this.listeners.push(fn);
  }

  get(group: string, version: string, resource: string): ResourceDef | undefined {
    return this.byGvr.get(ResourceTable.id(group, version, resource));
  }

  all(): ResourceDef[] {
    return [...this.byGvr.values()];
  }

  /** Group/versions in a stable order: core first, then groups as kube-apiserver orders them. */
  groupVersions(): { group: string; version: string }[] {
    const seen = new Map<string, { group: string; version: string }>();
    for (const d of this.byGvr.values()) seen.set(`${d.group}/${d.version}`, { group: d.group, version: d.version });
    return [...seen.values()];
  }

  byGroupVersion(group: string, version: string): ResourceDef[] {
    return this.all()
      .filter((d) => d.group === group && d.version === version)
      .sort((a, b) => a.resource.localeCompare(b.resource));
  }

  /** The def that stores objects of this kind (for `kind` lookups, e.g. ownerReferences). */
  byKind(group: string, kind: string): ResourceDef | undefined {
    for (const d of this.byGvr.values()) if (d.group === group && d.kind === kind) return d;
    return undefined;
  }
}
