/**
 * Regenerates `data/` from the Kubernetes 1.32 OpenAPI documents (see data/README.md):
 *   node dist/src/apiserver/openapi/generate-data.js <openapi source dir> <out dir>
 * The source dir holds `swagger.json` and `v3/*_openapi.json` as Kubernetes publishes them.
 */
import { readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { isServedDefinition, isServedGVK, isServedV2Path, isServedV3Path, v3FileOfPath, type GroupVersionKind } from './served.js';

type Json = Record<string, unknown>;

/** Cuts a swagger (v2) document down to the served groups/versions. */
export function filterSwagger(doc: Json): Json {
  const paths: Json = {};
  for (const [p, v] of Object.entries((doc['paths'] ?? {}) as Json)) if (isServedV2Path(p)) paths[p] = v;
  const definitions: Json = {};
  for (const [name, def] of Object.entries((doc['definitions'] ?? {}) as Json)) {
    if (!isServedDefinition(name)) continue;
    definitions[name] = filterGVKs(def as Json);
  }
  return { ...doc, definitions, paths };
}

function filterGVKs(def: Json): Json {
  const gvks = def['x-kubernetes-group-version-kind'] as GroupVersionKind[] | undefined;
  if (!gvks) return def;
  return { ...def, 'x-kubernetes-group-version-kind': gvks.filter(isServedGVK) };
}

/** `api__v1_openapi.json` -> `api/v1`. */
export function v3PathOfFile(file: string): string {
  return file.replace(/_openapi\.json$/, '').split('__').join('/');
}

function main(src: string, out: string): void {
  mkdirSync(join(out, 'v3'), { recursive: true });
  const swagger = JSON.parse(readFileSync(join(src, 'swagger.json'), 'utf8')) as Json;
  writeFileSync(join(out, 'swagger.json.gz'), gzipSync(JSON.stringify(filterSwagger(swagger)), { level: 9 }));
  const defaults: Record<string, Record<string, unknown>> = {};
  for (const f of readdirSync(join(src, 'v3')).sort()) {
    if (!f.endsWith('_openapi.json')) continue;
    const path = v3PathOfFile(f);
    if (!isServedV3Path(path)) continue;
    const doc = JSON.parse(readFileSync(join(src, 'v3', f), 'utf8')) as Json;
    writeFileSync(join(out, 'v3', v3FileOfPath(path)), gzipSync(JSON.stringify(doc), { level: 9 }));
    collectDefaults(doc, defaults);
  }
  writeFileSync(join(out, 'defaults.json.gz'), gzipSync(JSON.stringify(defaults), { level: 9 }));
}

/**
 * Property defaults by definition name. Only the v3 documents carry `default`; server-side apply needs them
 * for list-map keys the applier omitted (`protocol: TCP` of ports).
 */
export function collectDefaults(doc: Json, into: Record<string, Record<string, unknown>>): void {
  const schemas = ((doc['components'] as Json | undefined)?.['schemas'] ?? {}) as Record<string, { properties?: Record<string, { default?: unknown }> }>;
  for (const [name, s] of Object.entries(schemas)) {
    if (!isServedDefinition(name)) continue;
    for (const [prop, ps] of Object.entries(s.properties ?? {})) {
      if (ps.default === undefined) continue;
      (into[name] ??= {})[prop] = ps.default;
    }
  }
}

const [, script, src, out] = process.argv;
if (script !== undefined && script.endsWith('generate-data.js') && src !== undefined && out !== undefined) main(src, out);
