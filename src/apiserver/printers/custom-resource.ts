/**
 * Tables of custom resources, as apiextensions-apiserver's `tableconvertor` prints them: Name, then one
 * column per `additionalPrinterColumns` entry of the served version (or the default Age column when the
 * CRD declares none), cells read with the column's JSONPath.
 */
import { swaggerDoc } from './_swagger-doc.js';
import type { TableColumnDefinition } from './columns.js';
import { humanDuration } from './duration.js';
import type { KubeObject, PrintOptions, Table, TableRow } from './printers.js';

/** `apiextensions.k8s.io/v1` `CustomResourceColumnDefinition`. */
export interface CustomResourceColumnDefinition {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

/** What apiextensions-apiserver serves when a version has no additionalPrinterColumns. */
export const defaultCustomResourceColumns: readonly CustomResourceColumnDefinition[] = [
  { name: 'Age', type: 'date', description: swaggerDoc['ObjectMeta.creationTimestamp'] ?? '', jsonPath: '.metadata.creationTimestamp' },
];

type Segment = { field: string } | { index: number } | { all: true } | { filter: { path: string[]; op: '==' | '!='; value: unknown } };

/** Parses the simple JSONPath CRDs may use: `.a.b`, `['a.b']`, `[0]`, `[*]`, `[?(@.type=="Ready")]`. */
export function parseJsonPath(expr: string): Segment[] {
  let s = expr.trim();
  if (s.startsWith('{') && s.endsWith('}')) s = s.slice(1, -1);
  const out: Segment[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    if (c === '.') {
      i++;
      let name = '';
      while (i < s.length && s[i] !== '.' && s[i] !== '[') {
        if (s[i] === '\\' && i + 1 < s.length) i++;
        name += s[i];
        i++;
      }
      if (name !== '') out.push({ field: name });
      continue;
    }
    if (c === '[') {
      const end = s.indexOf(']', i);
      if (end < 0) throw new Error(`unclosed [ in ${expr}`);
      const inner = s.slice(i + 1, end).trim();
      i = end + 1;
      if (inner === '*') out.push({ all: true });
      else if (/^-?\d+$/.test(inner)) out.push({ index: Number(inner) });
      else if (/^'.*'$|^".*"$/.test(inner)) out.push({ field: inner.slice(1, -1) });
      else {
        const m = /^\?\(@((?:\.[^.=!]+)+)\s*(==|!=)\s*(.+)\)$/.exec(inner);
        if (!m) throw new Error(`unsupported JSONPath element [${inner}]`);
        const raw = (m[3] ?? '').trim();
        let value: unknown = raw;
        if (/^'.*'$|^".*"$/.test(raw)) value = raw.slice(1, -1);
        else if (raw === 'true' || raw === 'false') value = raw === 'true';
        else if (!Number.isNaN(Number(raw))) value = Number(raw);
        out.push({ filter: { path: (m[1] ?? '').split('.').filter((x) => x !== ''), op: m[2] === '!=' ? '!=' : '==', value } });
      }
      continue;
    }
    throw new Error(`unexpected ${c ?? ''} in JSONPath ${expr}`);
  }
  return out;
}

function step(values: unknown[], seg: Segment): unknown[] {
  const out: unknown[] = [];
  for (const v of values) {
    if ('field' in seg) {
      if (typeof v === 'object' && v !== null && !Array.isArray(v) && seg.field in v) out.push((v as Record<string, unknown>)[seg.field]);
    } else if ('index' in seg) {
      if (Array.isArray(v)) {
        const idx = seg.index < 0 ? v.length + seg.index : seg.index;
        if (idx >= 0 && idx < v.length) out.push(v[idx]);
      }
    } else if ('all' in seg) {
      if (Array.isArray(v)) out.push(...(v as unknown[]));
      else if (typeof v === 'object' && v !== null) out.push(...Object.values(v as Record<string, unknown>));
    } else if (Array.isArray(v)) {
      for (const item of v as unknown[]) {
        let x: unknown = item;
        for (const p of seg.filter.path) x = typeof x === 'object' && x !== null ? (x as Record<string, unknown>)[p] : undefined;
        if ((x === seg.filter.value) === (seg.filter.op === '==')) out.push(item);
      }
    }
  }
  return out;
}

/** The first value a JSONPath finds, or undefined. */
export function jsonPathFirst(obj: unknown, expr: string): unknown {
  let values: unknown[] = [obj];
  for (const seg of parseJsonPath(expr)) values = step(values, seg);
  return values[0];
}

function stringCell(v: unknown): string {
  if (typeof v === 'object' && v !== null) return JSON.stringify(v);
  return String(v);
}

/** `cellForJSONValue`: the typed cell of a column, null when the value does not fit the type. */
function cell(type: string, v: unknown, now: number): unknown {
  if (v === undefined || v === null) return null;
  switch (type) {
    case 'string':
      return stringCell(v);
    case 'integer':
      return typeof v === 'number' ? Math.trunc(v) : null;
    case 'number':
      return typeof v === 'number' ? v : null;
    case 'boolean':
      return typeof v === 'boolean' ? v : null;
    case 'date': {
      if (typeof v !== 'string') return null;
      const t = Date.parse(v);
      if (Number.isNaN(t)) return '<invalid>';
      return humanDuration(now - t);
    }
    default:
      return null;
  }
}

/** The Table of custom resources of one CRD version. */
export function printCustomResourceTable(
  columns: readonly CustomResourceColumnDefinition[] | undefined,
  objects: readonly KubeObject[],
  opts: PrintOptions,
): Table {
  const cols = columns !== undefined && columns.length > 0 ? columns : defaultCustomResourceColumns;
  const defs: TableColumnDefinition[] = [
    { name: 'Name', type: 'string', format: 'name', description: swaggerDoc['ObjectMeta.name'] ?? '', priority: 0 },
    ...cols.map((c) => ({ name: c.name, type: c.type, format: c.format ?? '', description: c.description ?? '', priority: c.priority ?? 0 })),
  ];
  const rows: TableRow[] = objects.map((obj) => {
    const cells: unknown[] = [obj.metadata?.name ?? ''];
    for (const c of cols) {
      let v: unknown;
      try {
        v = jsonPathFirst(obj, c.jsonPath);
      } catch {
        v = undefined;
      }
      cells.push(cell(c.type, v, opts.now));
    }
    let object: unknown = obj;
    if (opts.includeObject === 'None') object = null;
    else if (opts.includeObject === 'Metadata') object = { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata ?? {} };
    return { cells, object };
  });
  return { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: opts.listMeta ?? {}, columnDefinitions: opts.noHeaders === true ? [] : defs, rows };
}
