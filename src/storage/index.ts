/**
 * The storage layer: the `Backend` seam and its two implementations. Other components open a backend
 * through `openBackend` and use only the `Backend` interface.
 */
import type { Backend } from './backend.js';
import { openSqliteBackend, type SqliteCompactionOptions } from './sqlite/sqlite-backend.js';

export {
  Compacted,
  Conflict,
  FutureRevision,
  KeyExists,
  KeyNotFound,
  StorageError,
  type Backend,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type Watch,
  type WatchEvent,
  type WatchEventType,
} from './backend.js';
export {
  SqliteBackend,
  defaultSqliteFileName,
  openSqliteBackend,
  type SqliteBackendOptions,
  type SqliteCompactionOptions,
} from './sqlite/sqlite-backend.js';
// The etcd backend is loaded only when a cluster uses it (`openBackend`): its gRPC client took a tenth of a
// second of every start. Import `./etcd/etcd-backend.js` itself for its values.
export type { EtcdBackend, EtcdBackendOptions } from './etcd/etcd-backend.js';

/** Where and how to store the cluster's data. */
export type OpenBackendOptions =
  | {
      readonly kind: 'sqlite';
      /** Directory of the database file `kubemix.db`; created if missing. */
      readonly dataDir: string;
      /** Automatic compaction (default every 5 minutes), or false for none. */
      readonly compaction?: SqliteCompactionOptions | false;
    }
  | {
      readonly kind: 'etcd';
      /** etcd client URLs, e.g. `http://127.0.0.1:2379`. */
      readonly endpoints: string[];
      /** Key space the cluster owns (default `/registry/`); keys must start with it. */
      readonly prefix?: string;
      /** kube-apiserver's compactor (default every 5 minutes), or false for none. */
      readonly compaction?: { readonly intervalMs?: number } | false;
    };

/** Opens a started backend; the caller must `close()` it. */
export async function openBackend(opts: OpenBackendOptions): Promise<Backend> {
  if (opts.kind === 'sqlite') {
    const { dataDir, compaction } = opts;
    return openSqliteBackend(compaction === undefined ? { dataDir } : { dataDir, compaction });
  }
  const { endpoints, prefix, compaction } = opts;
  const { openEtcdBackend } = await import('./etcd/etcd-backend.js');
  return openEtcdBackend({ endpoints, ...(prefix !== undefined ? { prefix } : {}), ...(compaction !== undefined ? { compaction } : {}) });
}
