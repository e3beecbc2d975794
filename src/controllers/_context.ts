/**
 * What every controller is given: the API `Client`, a clock, shared informers, work queues and event
 * recorders. The shapes are the contracts of `src/client/` (Informer, WorkQueue, EventRecorder, Clock), kept
 * here as the subset controllers use, so the manager can pass the real implementations and tests can pass
 * the fakes of `_testing/`.
 */
import type { ResourceType } from '../api/resources.js';
import type { Client, KubeObject } from '../client/client.js';
import { namespaceIndexFunc } from '../client/index.js';

/** client-go's clock seam: ms since epoch and cancellable timers. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): { cancel(): void };
}

export interface InformerHandlers<T> {
  onAdd?(obj: T): void;
  onUpdate?(oldObj: T, newObj: T): void;
  onDelete?(obj: T): void;
}

/** A shared informer: a cache of one resource kept by list+watch. */
export interface Informer<T extends KubeObject> {
  addHandlers(h: InformerHandlers<T>): void;
  start(): void;
  stop(): void;
  hasSynced(): boolean;
  waitForSync(signal?: AbortSignal): Promise<void>;
  list(): T[];
  /** key = `namespace/name`, or `name` for cluster-scoped objects. */
  get(key: string): T | undefined;
  /** Objects under an index value; the manager indexes namespaced resources by `namespace` and pods by `spec.nodeName`. */
  byIndex(indexName: string, value: string): T[];
}

/** The index of every namespaced resource's informer. */
export const NamespaceIndex = 'namespace';
/** The index of the pod informer by node (the API server indexes pods the same way). */
export const NodeNameIndex = 'spec.nodeName';

export function nodeNameIndexFunc(obj: KubeObject): string[] {
  const n = (obj as { spec?: { nodeName?: string } }).spec?.nodeName;
  return n === undefined || n === '' ? [] : [n];
}

/** The indexers the manager installs on a resource's shared informer (shared functions: the factory dedupes by identity). */
export function standardIndexers(res: ResourceType): Record<string, (obj: KubeObject) => string[]> {
  const ix: Record<string, (obj: KubeObject) => string[]> = {};
  if (res.namespaced) ix[NamespaceIndex] = namespaceIndexFunc;
  if (res.group === '' && res.resource === 'pods') ix[NodeNameIndex] = nodeNameIndexFunc;
  return ix;
}

/** client-go's rate-limited work queue. */
export interface WorkQueue<K = string> {
  add(key: K): void;
  addAfter(key: K, delayMs: number): void;
  addRateLimited(key: K): void;
  forget(key: K): void;
  numRequeues(key: K): number;
  get(): Promise<K | undefined>;
  done(key: K): void;
  len(): number;
  shutDown(): void;
}

export interface EventRecorder {
  /** Fire-and-forget; never throws. */
  event(obj: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): void;
  flush(): Promise<void>;
}

export interface ControllerContext {
  client: Client;
  clock: Clock;
  /** The shared informer of a resource (one per resource for the whole manager; started by the manager). */
  informer<T extends KubeObject>(res: ResourceType): Informer<T>;
  newQueue(): WorkQueue<string>;
  /** An event recorder with `source.component` set, e.g. `replicaset-controller`. */
  recorder(component: string): EventRecorder;
}

/** A controller of the manager. `start()` registers handlers and starts workers; `stop()` ends them. */
export interface Controller {
  readonly name: string;
  start(): void;
  stop(): void;
}

export function objectKey(obj: KubeObject): string {
  const ns = obj.metadata?.namespace;
  const name = obj.metadata?.name ?? '';
  return ns === undefined || ns === '' ? name : `${ns}/${name}`;
}

export function splitKey(key: string): { namespace: string; name: string } {
  const i = key.indexOf('/');
  return i < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

/**
 * Runs `workers` loops that take keys from `queue` and call `sync`; a failed sync is retried with the
 * queue's rate limit (client-go's processNextWorkItem). Resolves when the queue is shut down.
 */
export async function runWorkers(
  queue: WorkQueue<string>,
  sync: (key: string) => Promise<void>,
  workers = 1,
  onError?: (key: string, err: unknown) => void,
): Promise<void> {
  const loop = async (): Promise<void> => {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      try {
        await sync(key);
        queue.forget(key);
      } catch (err) {
        onError?.(key, err);
        queue.addRateLimited(key);
      } finally {
        queue.done(key);
      }
    }
  };
  await Promise.all(Array.from({ length: workers }, () => loop()));
}

export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : typeof e === 'string' ? e : JSON.stringify(e);
}

export function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(errorMessage(e));
}

/**
 * Deep equality of JSON data up to key order and undefined members (see `jsonDeepEqual`): what the server
 * echoes back may order keys differently from what a controller computed, and a key-order difference must
 * not cause a write (each write would trigger another sync).
 */
export { jsonDeepEqual as semanticEqual } from '../util/json-equal.js';
