/**
 * OpenAPI v3 documents for custom resources (`/openapi/v3/apis/<group>/<version>`), built from the CRDs'
 * structural schemas, so kubectl's server-side field validation and `kubectl explain` work for them as on
 * a real cluster. The built-in documents come from the base provider unchanged.
 */
import { createHash } from 'node:crypto';
import type { OpenApiProvider } from '../seams.js';
import type { CrdRegistrar, CrdSpec } from './crd-registrar.js';

const metaPrefix = 'io.k8s.apimachinery.pkg.apis.meta.v1.';

function reverseGroup(group: string): string {
  return group.split('.').reverse().join('.');
}

export function withCustomResources(base: OpenApiProvider, crds: CrdRegistrar): OpenApiProvider {
  let metaSchemas: Record<string, unknown> | undefined;
  const meta = (): Record<string, unknown> => {
    if (metaSchemas !== undefined) return metaSchemas;
    const core = base.v3Doc('api/v1');
    const schemas = core === undefined ? {} : ((JSON.parse(core.toString('utf8')) as { components?: { schemas?: Record<string, unknown> } }).components?.schemas ?? {});
    metaSchemas = Object.fromEntries(Object.entries(schemas).filter(([k]) => k.startsWith(metaPrefix)));
    return metaSchemas;
  };
  const docsFor = (): Map<string, Buffer> => {
    const byGv = new Map<string, { spec: CrdSpec; version: string }[]>();
    for (const spec of crds.specs.values()) {
      for (const v of spec.versions) {
        if (v.served === false) continue;
        const key = `apis/${spec.group}/${v.name}`;
        const list = byGv.get(key) ?? [];
        list.push({ spec, version: v.name });
        byGv.set(key, list);
      }
    }
    const out = new Map<string, Buffer>();
    for (const [path, entries] of byGv) {
      const schemas: Record<string, unknown> = { ...meta() };
      const paths: Record<string, unknown> = {};
      for (const { spec, version } of entries) {
        const kind = spec.names.kind ?? '';
        const v = spec.versions.find((x) => x.name === version);
        const userSchema = { ...(v?.schema?.openAPIV3Schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }) };
        const props = { ...((userSchema['properties'] ?? {}) as Record<string, unknown>) };
        props['apiVersion'] = { type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object.' };
        props['kind'] = { type: 'string', description: 'Kind is a string value representing the REST resource this object represents.' };
        props['metadata'] = { allOf: [{ $ref: `#/components/schemas/${metaPrefix}ObjectMeta` }], description: "Standard object's metadata." };
        const gvk = [{ group: spec.group, version, kind }];
        const name = `${reverseGroup(spec.group)}.${version}.${kind}`;
        schemas[name] = { ...userSchema, type: 'object', properties: props, 'x-kubernetes-group-version-kind': gvk };
        schemas[`${name}List`] = {
          type: 'object',
          required: ['items'],
          properties: {
            apiVersion: { type: 'string' },
            items: { type: 'array', items: { $ref: `#/components/schemas/${name}` } },
            kind: { type: 'string' },
            metadata: { allOf: [{ $ref: `#/components/schemas/${metaPrefix}ListMeta` }] },
          },
          'x-kubernetes-group-version-kind': [{ group: spec.group, version, kind: spec.names.listKind ?? `${kind}List` }],
        };
        Object.assign(paths, restPaths(spec, version, name));
      }
      out.set(path, Buffer.from(JSON.stringify({ openapi: '3.0.0', info: { title: 'Kubernetes CRD Swagger', version: 'v0.1.0' }, paths, components: { schemas } })));
    }
    return out;
  };
  return {
    v2: () => base.v2(),
    v3Root: () => {
      const root = base.v3Root() as { paths?: Record<string, { serverRelativeURL: string }> };
      const paths = { ...(root.paths ?? {}) };
      for (const [path, doc] of docsFor()) {
        paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${createHash('sha512').update(doc).digest('hex').toUpperCase()}` };
      }
      return { paths };
    },
    v3Doc: (path) => base.v3Doc(path) ?? docsFor().get(path.replace(/^\/+|\/+$/g, '')),
  };
}

/**
 * The REST operations of a custom resource, as kube-apiserver publishes them: kubectl reads the
 * `fieldValidation` parameter of these operations to decide that the server validates fields itself.
 */
function restPaths(spec: CrdSpec, version: string, schemaName: string): Record<string, unknown> {
  const plural = spec.names.plural ?? '';
  const kind = spec.names.kind ?? '';
  const base = spec.scope === 'Namespaced' ? `/apis/${spec.group}/${version}/namespaces/{namespace}/${plural}` : `/apis/${spec.group}/${version}/${plural}`;
  const gvk = { group: spec.group, version, kind };
  const ref = { $ref: `#/components/schemas/${schemaName}` };
  const body = { content: { 'application/json': { schema: ref }, 'application/yaml': { schema: ref } }, required: true };
  const ok = { '200': { description: 'OK', content: { 'application/json': { schema: ref } } } };
  const q = (name: string, description: string): Record<string, unknown> => ({ name, in: 'query', description, schema: { type: 'string', uniqueItems: true } });
  const writeParams = [
    q('dryRun', 'When present, indicates that modifications should not be persisted.'),
    q('fieldManager', 'fieldManager is a name associated with the actor or entity that is making these changes.'),
    q('fieldValidation', 'fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields.'),
  ];
  const pathParams = [
    { name: 'name', in: 'path', description: `name of the ${kind}`, required: true, schema: { type: 'string', uniqueItems: true } },
    ...(spec.scope === 'Namespaced' ? [{ name: 'namespace', in: 'path', description: 'object name and auth scope, such as for teams and projects', required: true, schema: { type: 'string', uniqueItems: true } }] : []),
  ];
  const op = (action: string, operationId: string, extra: Record<string, unknown>): Record<string, unknown> => ({
    operationId,
    ...extra,
    responses: ok,
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk,
  });
  const id = `${version}${kind}`;
  return {
    [base]: {
      get: op('list', `list${id}`, {}),
      post: op('post', `create${id}`, { parameters: writeParams, requestBody: body }),
      parameters: spec.scope === 'Namespaced' ? [pathParams[1]] : [],
    },
    [`${base}/{name}`]: {
      get: op('get', `read${id}`, {}),
      put: op('put', `replace${id}`, { parameters: writeParams, requestBody: body }),
      patch: op('patch', `patch${id}`, {
        parameters: [...writeParams, q('force', 'Force is going to "force" Apply requests.')],
        requestBody: { content: { 'application/json-patch+json': { schema: { type: 'object' } }, 'application/merge-patch+json': { schema: { type: 'object' } }, 'application/apply-patch+yaml': { schema: { type: 'object' } } }, required: true },
      }),
      delete: op('delete', `delete${id}`, {}),
      parameters: pathParams,
    },
  };
}
