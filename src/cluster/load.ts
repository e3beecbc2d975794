/**
 * Reading a cluster config file: YAML or JSON, one document, native or eksctl by its `apiVersion`. A bad
 * config is refused before anything starts, with every problem found (file, field path, what is wrong).
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { fieldErrors } from '../api/field-errors.js';
import { ConfigReader, isMap, problemString } from './_validation.js';
import { eksctlApiVersion, readEksctlConfig } from './eksctl.js';
import { ClusterConfigError } from './errors.js';
import { nativeApiVersion, readNativeConfig } from './native.js';
import type { ClusterSpec } from './types.js';

/** The apiVersions a cluster config may have. */
export const clusterConfigApiVersions: readonly string[] = [nativeApiVersion, eksctlApiVersion];

/**
 * Parses and validates a config document's text. `fileName` prefixes every error line. Throws
 * `ClusterConfigError` listing every problem.
 */
export function parseClusterConfig(text: string, fileName: string): ClusterSpec {
  const docs = parseAllDocuments(text, { uniqueKeys: true }).filter((d) => !(d.contents === null && d.errors.length === 0));
  const first = docs[0];
  if (first === undefined) throw new ClusterConfigError(fileName, ['the file holds no document']);
  if (docs.length > 1) throw new ClusterConfigError(fileName, [`expected one document, found ${docs.length}`]);
  if (first.errors.length > 0) {
    throw new ClusterConfigError(fileName, first.errors.map((e) => (e.message.split('\n')[0] ?? e.message)));
  }
  const value: unknown = first.toJS();
  return readClusterConfig(value, fileName);
}

/** Validates an already-parsed config document (e.g. one built in code). */
export function readClusterConfig(doc: unknown, fileName: string): ClusterSpec {
  if (!isMap(doc)) throw new ClusterConfigError(fileName, ['must be a map with apiVersion, kind and metadata']);
  const reader = new ConfigReader();
  let spec: ClusterSpec | undefined;
  const apiVersion = doc['apiVersion'];
  if (apiVersion === nativeApiVersion) spec = readNativeConfig(doc, reader);
  else if (apiVersion === eksctlApiVersion) spec = readEksctlConfig(doc, reader);
  else if (apiVersion === undefined) reader.add(fieldErrors.required('apiVersion'));
  else reader.add(fieldErrors.notSupported('apiVersion', apiVersion, clusterConfigApiVersions));
  if (spec === undefined || reader.problems.length > 0) {
    throw new ClusterConfigError(fileName, reader.problems.map(problemString));
  }
  return spec;
}

/** Reads and validates a config file; errors name the file by its base name. */
export async function loadClusterConfig(path: string): Promise<ClusterSpec> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ClusterConfigError(basename(path), [code === 'ENOENT' ? 'no such file' : `cannot read: ${String(e)}`]);
  }
  return parseClusterConfig(text, basename(path));
}
