/**
 * Tables for custom resources: `additionalPrinterColumns` evaluated with kubectl's JSONPath subset
 * (`.a.b`, `[n]`, `[?(@.k=="v")]`), or NAME and AGE when a CRD defines none (kube-apiserver's default
 * for custom resources).
 */
import type { StoredObject } from '../storage/watch-cache.js';
import { translateTimestampSince } from '../printers/index.js';
import type { PrinterColumn } from './crd-registrar.js';

type Step = { field: string } | { index: number } | { filter: { key: string; value: string } } | { all: true };

function parsePath(path: string): Step[] {
  const steps: Step[] = [];
  let p = path.trim();
  if (p.startsWith('{') && p.endsWith('}')) p = p.slice(1, -1);
  if (p.startsWith('$')) p = p.slice(1);
  const re = /\.([A-Za-z0-9_\-$]+)|\[(\d+)\]|\[\?\(@\.([A-Za-z0-9_\-.]+)\s*==\s*["']([^"']*)["']\)\]|\[\*\]|\['([^']+)'\]/gy;
  let m: RegExpExecArray | null;
  while ((m = re.exec(p)) !== null) {
    if (m[1] !== undefined) steps.push({ field: m[1] });
    else if (m[2] !== undefined) steps.push({ index: Number(m[2]) });
    else if (m[3] !== undefined) steps.push({ filter: { key: m[3], value: m[4] ?? '' } });
    else if (m[5] !== undefined) steps.push({ field: m[5] });
    else steps.push({ all: true });
  }
  return steps;
}

function get(obj: unknown, path: string): unknown[] {
  let cur: unknown[] = [obj];
  for (const step of parsePath(path)) {
    const next: unknown[] = [];
    for (const v of cur) {
      if ('field' in step) {
        if (v !== null && typeof v === 'object' && !Array.isArray(v) && step.field in v) next.push((v as Record<string, unknown>)[step.field]);
      } else if ('index' in step) {
        if (Array.isArray(v) && step.index < v.length) next.push(v[step.index]);
      } else if ('filter' in step) {
        if (Array.isArray(v)) {
          for (const item of v) {
            const found = get(item, `.${step.filter.key}`)[0];
            if ((typeof found === 'string' || typeof found === 'number' || typeof found === 'boolean') && String(found) === step.filter.value) next.push(item);
          }
        }
      } else if (Array.isArray(v)) next.push(...(v as unknown[]));
    }
    cur = next;
  }
  return cur;
}

function cell(col: PrinterColumn, obj: StoredObject, now: number): unknown {
  const values = get(obj, col.jsonPath);
  if (values.length === 0) return null;
  const v = values[0];
  if (col.type === 'date') return typeof v === 'string' ? translateTimestampSince(v, now) : null;
  if (col.type === 'integer' || col.type === 'number') return typeof v === 'number' ? v : null;
  if (col.type === 'boolean') return typeof v === 'boolean' ? v : null;
  if (typeof v === 'string') return v;
  return JSON.stringify(v);
}

export function customResourceTable(
  objects: readonly StoredObject[],
  columns: readonly PrinterColumn[] | undefined,
  opts: { includeObject: 'None' | 'Metadata' | 'Object'; now: number },
): Record<string, unknown> {
  const cols: PrinterColumn[] =
    columns !== undefined && columns.length > 0
      ? [...columns]
      : [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: '' }];
  const columnDefinitions = [
    { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names', priority: 0 },
    ...cols.map((c) => ({ name: c.name, type: c.type, format: c.format ?? '', description: c.description ?? '', priority: c.priority ?? 0 })),
  ];
  const rows = objects.map((o) => ({
    cells: [o.metadata?.name ?? '', ...cols.map((c) => cell(c, o, opts.now))],
    object:
      opts.includeObject === 'None'
        ? null
        : opts.includeObject === 'Object'
          ? o
          : { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata ?? {} },
  }));
  return { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: {}, columnDefinitions, rows };
}
