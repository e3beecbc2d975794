/**
 * Shared informers (client-go's `SharedInformerFactory`): components in one process that ask for the same
 * resource with the same namespace and selectors share one list+watch and one cache, which matters when one
 * process hosts a scheduler, controllers and thousands of simulated nodes.
 */
import type { ResourceType } from '../api/resources.js';
import type { Client, KubeObject } from './client.js';
import type { Clock } from './clock.js';
import { createInformer, type Informer, type InformerOptions } from './informer.js';

export interface InformerFactoryOptions {
  clock?: Clock;
  log?: (message: string, err?: unknown) => void;
  /** Default page size of the informers' lists. */
  pageSize?: number;
  /** Applied by every informer that has no `transform` of its own (client-go's `WithTransform`). */
  transform?: <T extends KubeObject>(obj: T) => T;
}

export interface InformerFactory {
  /**
   * The shared informer for `res` with these namespace and selectors. Asking again answers the same informer;
   * indexers are added to it (a name already in use with another function throws); `pageSize` and
   * `transform` of the first request win.
   */
  informerFor<T extends KubeObject>(res: ResourceType, opts?: Omit<InformerOptions<T>, 'clock' | 'log'>): Informer<T>;
  /** Starts every informer handed out so far; later ones start as they are handed out. */
  start(): void;
  /** Stops every informer. Idempotent. */
  stop(): void;
  /** Resolves when every informer handed out so far has synced. */
  waitForSync(signal?: AbortSignal): Promise<void>;
}

export function createInformerFactory(client: Client, opts: InformerFactoryOptions = {}): InformerFactory {
  const informers = new Map<string, { informer: Informer<KubeObject>; indexers: Map<string, unknown> }>();
  let started = false;
  let stopped = false;
  return {
    informerFor<T extends KubeObject>(res: ResourceType, o: Omit<InformerOptions<T>, 'clock' | 'log'> = {}): Informer<T> {
      const key = [res.group, res.version, res.resource, o.namespace ?? '', o.labelSelector ?? '', o.fieldSelector ?? ''].join('|');
      let entry = informers.get(key);
      if (entry === undefined) {
        const full: InformerOptions<T> = { ...o };
        if (opts.clock !== undefined) full.clock = opts.clock;
        if (opts.log !== undefined) full.log = opts.log;
        if (full.pageSize === undefined && opts.pageSize !== undefined) full.pageSize = opts.pageSize;
        if (full.transform === undefined && opts.transform !== undefined) full.transform = opts.transform;
        const informer = createInformer<T>(client, res, full);
        entry = { informer: informer as unknown as Informer<KubeObject>, indexers: new Map(Object.entries(o.indexers ?? {})) };
        informers.set(key, entry);
        if (started && !stopped) informer.start();
        return informer;
      }
      const fresh: Record<string, (obj: T) => string[]> = {};
      for (const [name, fn] of Object.entries(o.indexers ?? {})) {
        const existing = entry.indexers.get(name);
        if (existing === fn) continue;
        if (existing !== undefined) throw new Error(`indexer conflict: ${name}`);
        fresh[name] = fn;
        entry.indexers.set(name, fn);
      }
      const informer = entry.informer as unknown as Informer<T>;
      informer.addIndexers(fresh);
      return informer;
    },
    start(): void {
      if (started || stopped) return;
      started = true;
      for (const { informer } of informers.values()) informer.start();
    },
    stop(): void {
      if (stopped) return;
      stopped = true;
      for (const { informer } of informers.values()) informer.stop();
    },
    async waitForSync(signal?: AbortSignal): Promise<void> {
      await Promise.all([...informers.values()].map(({ informer }) => informer.waitForSync(signal)));
    },
  };
}
