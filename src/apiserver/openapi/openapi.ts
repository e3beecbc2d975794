/**
 * Kubernetes 1.32's OpenAPI documents for the served groups/versions: the bytes of `/openapi/v2` and
 * `/openapi/v3/...`, a schema index by GroupVersionKind, the type metadata patches need
 * (`x-kubernetes-patch-merge-key`, `-patch-strategy`, `-list-type`, `-list-map-keys`, `-map-type`), and the
 * unknown-field check of `fieldValidation=Strict|Warn`.
 *
 * Data lives in `src/apiserver/openapi/data/` (gzip). It is read lazily, once per `OpenApi` instance, from the
 * source tree: the compiled module is `dist*\/src/apiserver/openapi/openapi.js`, so the default data
 * directory is `../../../../src/apiserver/openapi/data/` relative to it (see data/README.md).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { v3FileOfPath, type GroupVersionKind } from './served.js';

export type { GroupVersionKind } from './served.js';

/** An OpenAPI v2 schema object (the subset Kubernetes uses). */
export interface Schema {
  $ref?: string;
  type?: string;
  format?: string;
  description?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  allOf?: Schema[];
  required?: string[];
  'x-kubernetes-patch-merge-key'?: string;
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-group-version-kind'?: GroupVersionKind[];
}

interface SwaggerDoc {
  definitions: Record<string, Schema>;
  paths: Record<string, unknown>;
}

export interface OpenApiOptions {
  /** Where `swagger.json.gz` and `v3/` live; defaults to the source tree's `src/apiserver/openapi/data/`. */
  dataDir?: string;
}

/** The type metadata at one place in a schema, after following `$ref`s. */
export interface FieldTypeMeta {
  patchMergeKey?: string;
  /** e.g. `merge`, `retainKeys`, `merge,retainKeys`, `replace`. */
  patchStrategy?: string;
  listType?: 'atomic' | 'set' | 'map';
  listMapKeys?: string[];
  mapType?: 'atomic' | 'granular';
}

const REF_PREFIX = '#/definitions/';

function defaultDataDir(): string {
  return fileURLToPath(new URL('../../../../src/apiserver/openapi/data/', import.meta.url));
}

function gvkKey(gvk: GroupVersionKind): string {
  return `${gvk.group}/${gvk.version}/${gvk.kind}`;
}

/**
 * A navigable schema node: the schema at some place in a type, with the metadata that the place itself
 * carries (a property's `x-kubernetes-patch-strategy` sits on the property, next to its `$ref`).
 */
export class SchemaNode {
  constructor(
    private readonly api: OpenApi,
    /** The schema as written at this place (may be a `$ref` or an `allOf` wrapper). */
    readonly declared: Schema,
  ) {}

  /** The definition this place refers to (`io.k8s.api.core.v1.ServicePort`), if any. */
  get definitionName(): string | undefined {
    return this.api.definitionNameOf(this.declared);
  }

  /** The OpenAPI v3 `default` of a struct field (`protocol` of a ServicePort is `TCP`). */
  defaultOf(field: string): unknown {
    const name = this.definitionName;
    return name === undefined ? undefined : this.api.propertyDefault(name, field);
  }

  // The documents are fixed once loaded, so a node's resolution and metadata are computed once.
  private resolvedCache: Schema | undefined;
  private metaCache: FieldTypeMeta | undefined;

  /** The schema with `$ref`/`allOf` resolved (metadata of the place is on `declared`). */
  get resolved(): Schema {
    return (this.resolvedCache ??= this.api.resolve(this.declared));
  }

  get meta(): FieldTypeMeta {
    return (this.metaCache ??= this.computeMeta());
  }

  private computeMeta(): FieldTypeMeta {
    const d = this.declared;
    const r = this.resolved;
    const m: FieldTypeMeta = {};
    const pick = <K extends keyof Schema>(k: K): Schema[K] => (d[k] !== undefined ? d[k] : r[k]);
    const mk = pick('x-kubernetes-patch-merge-key');
    if (mk !== undefined) m.patchMergeKey = mk;
    const ps = pick('x-kubernetes-patch-strategy');
    if (ps !== undefined) m.patchStrategy = ps;
    const lt = pick('x-kubernetes-list-type');
    if (lt !== undefined) m.listType = lt;
    const lk = pick('x-kubernetes-list-map-keys');
    if (lk !== undefined) m.listMapKeys = lk;
    const mt = pick('x-kubernetes-map-type');
    if (mt !== undefined) m.mapType = mt;
    return m;
  }

  /** The schema of a struct field, or of a map value when the node is a map. */
  field(name: string): SchemaNode | undefined {
    const r = this.resolved;
    const p = r.properties?.[name];
    if (p) return this.api.nodeOf(p);
    if (typeof r.additionalProperties === 'object') return this.api.nodeOf(r.additionalProperties);
    return undefined;
  }

  /** A struct's required fields. */
  required(): readonly string[] {
    return this.resolved.required ?? [];
  }

  /** The OpenAPI type of a scalar (`string`, `integer`, `number`, `boolean`). */
  scalarType(): string | undefined {
    return this.resolved.type;
  }

  /** The element schema of a list. */
  items(): SchemaNode | undefined {
    const it = this.resolved.items;
    return it ? this.api.nodeOf(it) : undefined;
  }

  isList(): boolean {
    return this.resolved.type === 'array';
  }

  /** A struct with declared properties (as opposed to a map or an opaque object). */
  isStruct(): boolean {
    return this.resolved.properties !== undefined;
  }

  isMap(): boolean {
    return this.resolved.properties === undefined && typeof this.resolved.additionalProperties === 'object';
  }
}

export class OpenApi {
  private readonly dataDir: string;
  private swaggerBytes: Buffer | undefined;
  private swagger: SwaggerDoc | undefined;
  private byGVK: Map<string, string> | undefined;
  private readonly v3Cache = new Map<string, Buffer | null>();
  private defaults: Record<string, Record<string, unknown>> | undefined;
  private v3Root: { paths: Record<string, { serverRelativeURL: string }> } | undefined;
  private readonly nodes = new WeakMap<Schema, SchemaNode>();
  private readonly roots = new Map<string, SchemaNode>();

  constructor(opts: OpenApiOptions = {}) {
    this.dataDir = opts.dataDir ?? defaultDataDir();
  }

  /** The body of `GET /openapi/v2` (application/json). */
  openapiV2(): Buffer {
    this.swaggerBytes ??= gunzipSync(readFileSync(join(this.dataDir, 'swagger.json.gz')));
    return this.swaggerBytes;
  }

  /** The body of `GET /openapi/v3`: each served document with its `?hash=` (upper-case hex SHA-512, as kube-openapi). */
  openapiV3Paths(): { paths: Record<string, { serverRelativeURL: string }> } {
    if (this.v3Root) return this.v3Root;
    const paths: Record<string, { serverRelativeURL: string }> = {};
    for (const p of this.v3DocumentPaths()) {
      const doc = this.openapiV3Doc(p);
      if (!doc) continue;
      paths[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${createHash('sha512').update(doc).digest('hex').toUpperCase()}` };
    }
    this.v3Root = { paths };
    return this.v3Root;
  }

  /** The body of `GET /openapi/v3/<path>` (`apis/apps/v1`), or undefined when not served. */
  openapiV3Doc(groupVersionPath: string): Buffer | undefined {
    const p = groupVersionPath.replace(/^\/+|\/+$/g, '');
    const cached = this.v3Cache.get(p);
    if (cached !== undefined) return cached ?? undefined;
    if (!/^[A-Za-z0-9._/-]+$/.test(p) || p.includes('..')) return undefined;
    const file = join(this.dataDir, 'v3', v3FileOfPath(p));
    const buf = existsSync(file) ? gunzipSync(readFileSync(file)) : null;
    this.v3Cache.set(p, buf);
    return buf ?? undefined;
  }

  private v3DocumentPaths(): string[] {
    const api = ['api', 'api/v1', 'apis'];
    const rest = Object.keys(this.doc().paths)
      .map((p) => /^\/apis\/([^/]+)\/([^/]+)\//.exec(p))
      .flatMap((m) => (m ? [`apis/${m[1] ?? ''}`, `apis/${m[1] ?? ''}/${m[2] ?? ''}`] : []));
    return [...new Set([...api, ...rest, 'openid/v1/jwks', 'version'])].sort();
  }

  private doc(): SwaggerDoc {
    this.swagger ??= JSON.parse(this.openapiV2().toString('utf8')) as SwaggerDoc;
    return this.swagger;
  }

  /** All definitions, by name (`io.k8s.api.core.v1.Pod`). */
  definitions(): Readonly<Record<string, Schema>> {
    return this.doc().definitions;
  }

  /** The definition name of a kind (`io.k8s.api.apps.v1.Deployment` for apps/v1 Deployment). */
  definitionNameFor(gvk: GroupVersionKind): string | undefined {
    if (!this.byGVK) {
      const m = new Map<string, string>();
      for (const [name, def] of Object.entries(this.doc().definitions)) {
        const gvks = def['x-kubernetes-group-version-kind'] ?? [];
        // Shared types (DeleteOptions, WatchEvent, Status) list many GVKs; a kind's own type lists one.
        for (const g of gvks) if (gvks.length === 1 || !m.has(gvkKey(g))) m.set(gvkKey(g), name);
      }
      this.byGVK = m;
    }
    return this.byGVK.get(gvkKey(gvk));
  }

  /** The definition of a kind, or undefined for kinds not in the served documents. */
  schemaFor(gvk: GroupVersionKind): Schema | undefined {
    const name = this.definitionNameFor(gvk);
    return name === undefined ? undefined : this.doc().definitions[name];
  }

  /** The root schema node of a kind, for walking with `field()` / `items()`. */
  nodeFor(gvk: GroupVersionKind): SchemaNode | undefined {
    const name = this.definitionNameFor(gvk);
    if (name === undefined) return undefined;
    let n = this.roots.get(name);
    if (n === undefined) this.roots.set(name, (n = new SchemaNode(this, { $ref: REF_PREFIX + name })));
    return n;
  }

  /** One SchemaNode per schema object of the documents, so each place is resolved once. */
  nodeOf(s: Schema): SchemaNode {
    let n = this.nodes.get(s);
    if (n === undefined) this.nodes.set(s, (n = new SchemaNode(this, s)));
    return n;
  }

  /** The definition name a schema refers to through `$ref` / single `allOf`. */
  definitionNameOf(s: Schema): string | undefined {
    let cur = s;
    for (let i = 0; i < 32; i++) {
      if (cur.$ref !== undefined) return cur.$ref.slice(REF_PREFIX.length);
      if (cur.allOf !== undefined && cur.allOf.length === 1 && cur.allOf[0]) cur = cur.allOf[0];
      else return undefined;
    }
    return undefined;
  }

  /** A property's `default` (from the v3 documents; the v2 document has none). */
  propertyDefault(definition: string, property: string): unknown {
    this.defaults ??= JSON.parse(gunzipSync(readFileSync(join(this.dataDir, 'defaults.json.gz'))).toString('utf8')) as Record<string, Record<string, unknown>>;
    return this.defaults[definition]?.[property];
  }

  /** A schema with `$ref` and single-element `allOf` followed. */
  resolve(s: Schema): Schema {
    let cur = s;
    for (let i = 0; i < 32; i++) {
      if (cur.$ref !== undefined) {
        const def = this.doc().definitions[cur.$ref.slice(REF_PREFIX.length)];
        if (!def) return {};
        cur = def;
      } else if (cur.allOf !== undefined && cur.allOf.length === 1 && cur.allOf[0]) {
        cur = cur.allOf[0];
      } else {
        return cur;
      }
    }
    return cur;
  }

  /**
   * Type metadata at a field path of a kind; list elements are crossed with `[]` (`spec`, `template`,
   * `spec`, `containers`, `[]`, `ports`). Undefined when the path leaves the schema.
   */
  typeMetaAt(gvk: GroupVersionKind, path: readonly string[]): FieldTypeMeta | undefined {
    let node = this.nodeFor(gvk);
    for (const seg of path) {
      if (!node) return undefined;
      node = seg === '[]' ? node.items() : node.field(seg);
    }
    return node?.meta;
  }
}
