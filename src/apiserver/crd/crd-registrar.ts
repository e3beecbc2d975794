/**
 * Serves the custom resources CustomResourceDefinitions define (kube-apiserver's apiextensions
 * controllers, in process): every served version of a CRD becomes a resource in the table (discovery,
 * REST, watch), and the CRD's status gets `acceptedNames` and the `NamesAccepted` and `Established`
 * conditions, as Helm waits for.
 */
import { parseSelector } from '../../api/labels.js';
import { FieldSelector } from '../../api/fields.js';
import { keyPrefixFor, type ResourceDef, type ResourceTable, type SubresourceDef } from '../discovery/resource-defs.js';
import type { Store } from '../registry/store.js';
import type { CustomResourceScale, JSONSchemaProps } from './crd-schema.js';
import { cachedJson, type CachedObject, type CacheEventType, type StoredObject } from '../storage/watch-cache.js';

/** `spec.names` and `status.acceptedNames` of a CRD. */
export interface CrdNames {
  plural?: string;
  singular?: string;
  kind?: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

export interface CrdVersion {
  name: string;
  schema?: { openAPIV3Schema?: Record<string, unknown> };
  served?: boolean;
  storage?: boolean;
  subresources?: { status?: object; scale?: CustomResourceScale };
  additionalPrinterColumns?: PrinterColumn[];
}

export interface PrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

export interface CrdSpec {
  group: string;
  names: CrdNames;
  scope: 'Namespaced' | 'Cluster';
  versions: CrdVersion[];
}

const verbs = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];

/** The versions a CRD serves: `served: true` (left out, the bool decodes false in Go and the version is not served). */
export function servedVersions(spec: CrdSpec): CrdVersion[] {
  return spec.versions.filter((v) => v.served === true);
}

/** The resource definitions a CRD serves, one per served version. */
export function crdResourceDefs(spec: CrdSpec): ResourceDef[] {
  const plural = spec.names.plural ?? '';
  return servedVersions(spec)
    .map((v) => {
      const subresources = new Map<string, SubresourceDef>();
      if (v.subresources?.status !== undefined) subresources.set('status', { name: 'status', kind: spec.names.kind ?? '', verbs: ['get', 'patch', 'update'] });
      if (v.subresources?.scale !== undefined) {
        subresources.set('scale', { name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'] });
      }
      return {
        group: spec.group,
        version: v.name,
        resource: plural,
        kind: spec.names.kind ?? '',
        namespaced: spec.scope === 'Namespaced',
        singularName: spec.names.singular ?? (spec.names.kind ?? '').toLowerCase(),
        shortNames: spec.names.shortNames ?? [],
        categories: spec.names.categories ?? [],
        verbs,
        subresources,
        keyPrefix: keyPrefixFor(spec.group, plural, true),
        virtual: false,
        custom: true,
      };
    });
}

function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export interface CrdRegistrarOptions {
  table: ResourceTable;
  store: Store;
  now?: () => Date;
}

export class CrdRegistrar {
  private stopWatch: (() => void) | undefined;
  /** CRD name -> the defs it added. */
  private readonly served = new Map<string, ResourceDef[]>();
  /** The served CRDs by name (for OpenAPI documents). */
  readonly specs = new Map<string, CrdSpec>();
  /** Printer columns by `group/version/resource`. */
  readonly printerColumns = new Map<string, PrinterColumn[]>();
  private pending: Promise<void> = Promise.resolve();

  constructor(private readonly o: CrdRegistrarOptions) {}

  async start(): Promise<void> {
    const def = this.o.table.get('apiextensions.k8s.io', 'v1', 'customresourcedefinitions');
    if (def === undefined) return;
    const sink = {
      push: (type: CacheEventType, c: CachedObject): void => {
        const obj = JSON.parse(cachedJson(c)) as StoredObject;
        this.pending = this.pending.then(() => this.onEvent(def, type, obj)).catch((e: unknown) => console.error('crd registrar:', e));
      },
      close: (): void => undefined,
    };
    this.stopWatch = await this.o.store.watch(def, { labelSelector: parseSelector(''), fieldSelector: FieldSelector.everything() }, sink);
    await this.pending;
  }

  async stop(): Promise<void> {
    this.stopWatch?.();
    await this.pending;
  }

  /** The structural schema of a custom resource's version (undefined: none, or not a custom resource). */
  schemaFor(def: ResourceDef): JSONSchemaProps | undefined {
    if (!def.custom) return undefined;
    for (const spec of this.specs.values()) {
      if (spec.group !== def.group || spec.names.plural !== def.resource) continue;
      return spec.versions.find((v) => v.name === def.version)?.schema?.openAPIV3Schema;
    }
    return undefined;
  }

  /** The scale subresource of a custom resource's version, if it has one. */
  scaleFor(def: ResourceDef): CustomResourceScale | undefined {
    if (!def.custom) return undefined;
    for (const spec of this.specs.values()) {
      if (spec.group !== def.group || spec.names.plural !== def.resource) continue;
      return spec.versions.find((v) => v.name === def.version)?.subresources?.scale;
    }
    return undefined;
  }

  /** Resolves when every CRD change seen so far has been served. */
  async settled(): Promise<void> {
    await this.pending;
  }

  private async onEvent(crdDef: ResourceDef, type: CacheEventType, crd: StoredObject): Promise<void> {
    const name = crd.metadata?.name ?? '';
    const spec = crd['spec'] as CrdSpec | undefined;
    for (const d of this.served.get(name) ?? []) {
      this.o.table.remove(d.group, d.version, d.resource);
      this.printerColumns.delete(`${d.group}/${d.version}/${d.resource}`);
    }
    this.served.delete(name);
    this.specs.delete(name);
    if (type === 'DELETED' || spec === undefined) return;
    if (crd.metadata?.deletionTimestamp !== undefined) {
      await this.finalizeDeletion(crdDef, crd, spec);
      return;
    }
    const defs = crdResourceDefs(spec);
    for (const d of defs) {
      this.o.table.add(d);
      const v = spec.versions.find((x) => x.name === d.version);
      if (v?.additionalPrinterColumns !== undefined) this.printerColumns.set(`${d.group}/${d.version}/${d.resource}`, v.additionalPrinterColumns);
    }
    this.served.set(name, defs);
    this.specs.set(name, spec);
    await this.updateStatus(crdDef, crd, spec);
  }

  /** Deleting a CRD deletes its custom resources, then the `customresourcecleanup` finalizer goes. */
  private async finalizeDeletion(crdDef: ResourceDef, crd: StoredObject, spec: CrdSpec): Promise<void> {
    const ctx = { user: { username: 'system:apiserver', groups: ['system:masters'] }, dryRun: false, fieldManager: 'kube-apiserver' };
    // Every version shares one storage prefix: deleting through the first deletes them all.
    const defs = crdResourceDefs(spec);
    const first = defs[0];
    if (first !== undefined) await this.o.store.deleteCollection(first, { labelSelector: parseSelector(''), fieldSelector: FieldSelector.everything() }, {}, ctx);
    for (const d of defs) this.o.store.dropCache(d);
    const name = crd.metadata?.name ?? '';
    await this.o.store.guaranteedUpdate(crdDef, '', name, '', ctx, undefined, (live) => {
      if (live === undefined) return live;
      const md = live.metadata ?? {};
      md.finalizers = (md.finalizers ?? []).filter((f) => f !== 'customresourcecleanup.apiextensions.k8s.io');
      return live;
    }).catch(() => undefined);
  }

  private async updateStatus(crdDef: ResourceDef, crd: StoredObject, spec: CrdSpec): Promise<void> {
    const now = rfc3339((this.o.now ?? (() => new Date()))());
    const acceptedNames: Record<string, unknown> = {
      plural: spec.names.plural,
      singular: spec.names.singular ?? (spec.names.kind ?? '').toLowerCase(),
      kind: spec.names.kind,
      listKind: spec.names.listKind ?? `${spec.names.kind ?? ''}List`,
    };
    if (spec.names.shortNames !== undefined) acceptedNames['shortNames'] = spec.names.shortNames;
    if (spec.names.categories !== undefined) acceptedNames['categories'] = spec.names.categories;
    const status = (crd['status'] ?? {}) as { conditions?: { type: string; status: string }[]; acceptedNames?: unknown };
    const established = status.conditions?.some((c) => c.type === 'Established' && c.status === 'True') === true;
    if (established && JSON.stringify(status.acceptedNames) === JSON.stringify(acceptedNames)) return;
    const ctx = { user: { username: 'system:apiserver', groups: ['system:masters'] }, dryRun: false, fieldManager: 'kube-apiserver' };
    await this.o.store
      .guaranteedUpdate(crdDef, '', crd.metadata?.name ?? '', 'status', ctx, undefined, (live) => {
        if (live === undefined) return live;
        // storedVersions belong to the CRD strategy (and storage migrations): carried over as they are.
        const storedVersions = ((live['status'] ?? {}) as { storedVersions?: string[] }).storedVersions;
        live['status'] = {
          conditions: [
            { type: 'NamesAccepted', status: 'True', lastTransitionTime: now, reason: 'NoConflicts', message: 'no conflicts found' },
            { type: 'Established', status: 'True', lastTransitionTime: now, reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' },
          ],
          acceptedNames,
          ...(storedVersions !== undefined ? { storedVersions } : {}),
        };
        return live;
      })
      .catch(() => undefined);
  }
}
