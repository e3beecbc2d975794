/**
 * Manifest input for `kubemix check`: files, folders (their `.yaml`, `.yml` and `.json` files, recursively,
 * in name order, as `kubectl apply -f DIR` reads them) and `-` for stdin; multi-document YAML, JSON, and
 * `v1 List`s (`kind: List` or any `*List` with `items`) flattened into their items.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../client/client.js';
import type { SourceRef } from './types.js';

/** One manifest object and where it came from. */
export interface InputObject {
  obj: KubeObject;
  source: SourceRef;
}

/** Unusable input (exit 2): the file and the reason. */
export class InputError extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`${file}: ${reason}`);
    this.name = 'InputError';
  }
}

const manifestExtensions = ['.yaml', '.yml', '.json'];

function filesOf(path: string): string[] {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new InputError(path, 'no such file or directory');
  }
  if (!st.isDirectory()) return [path];
  const out: string[] = [];
  for (const e of readdirSync(path, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const p = join(path, e.name);
    if (e.isDirectory()) out.push(...filesOf(p));
    else if (manifestExtensions.some((x) => e.name.endsWith(x))) out.push(p);
  }
  return out;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Parses one file's text into its objects (empty documents skipped, Lists flattened). */
export function parseManifests(text: string, file: string): InputObject[] {
  const values: unknown[] = [];
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      values.push(JSON.parse(text));
    } catch (e) {
      // YAML is a superset of JSON; fall through to the YAML parser for its error positions.
      if (!(e instanceof SyntaxError)) throw e;
      values.length = 0;
    }
  }
  if (values.length === 0) {
    for (const doc of parseAllDocuments(text)) {
      if (doc.errors.length > 0) throw new InputError(file, `error parsing YAML: ${doc.errors[0]?.message ?? 'invalid document'}`);
      values.push(doc.toJS({ maxAliasCount: 1000 }) as unknown);
    }
  }
  const out: InputObject[] = [];
  let document = 0;
  const add = (v: unknown, doc: number): void => {
    if (v === null || v === undefined) return;
    if (Array.isArray(v)) {
      for (const x of v) add(x, doc);
      return;
    }
    if (!isRecord(v)) throw new InputError(file, `document ${doc}: not a Kubernetes object`);
    const kind = v['kind'];
    const apiVersion = v['apiVersion'];
    if (typeof kind === 'string' && kind.endsWith('List') && Array.isArray(v['items'])) {
      for (const item of v['items'] as unknown[]) add(item, doc);
      return;
    }
    const missing: string[] = [];
    if (typeof apiVersion !== 'string' || apiVersion === '') missing.push('apiVersion not set');
    if (typeof kind !== 'string' || kind === '') missing.push('kind not set');
    if (missing.length > 0) throw new InputError(file, `document ${doc}: error validating data: [${missing.join(', ')}]`);
    out.push({ obj: v, source: { file, document: doc } });
  };
  for (const v of values) {
    document++;
    add(v, document);
  }
  return out;
}

/** Reads every path (`-` = `stdin`, read once). Throws `InputError` for unreadable or unparsable input. */
export function loadManifests(paths: readonly string[], stdin: () => string): InputObject[] {
  if (paths.length === 0) throw new InputError('-f', 'no manifests given (use -f FILE, -f DIR or -f - for stdin)');
  const out: InputObject[] = [];
  for (const p of paths) {
    if (p === '-') {
      out.push(...parseManifests(stdin(), '-'));
      continue;
    }
    for (const f of filesOf(p)) {
      let text: string;
      try {
        text = readFileSync(f, 'utf8');
      } catch (e) {
        throw new InputError(f, e instanceof Error ? e.message : String(e));
      }
      out.push(...parseManifests(text, f));
    }
  }
  return out;
}
