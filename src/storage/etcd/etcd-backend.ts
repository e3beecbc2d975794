/**
 * The etcd backend: the Backend contract mapped onto etcd's v3 API one to one, the way kube-apiserver's
 * storage/etcd3 store does it (k8s.io/apiserver/pkg/storage/etcd3/store.go). Revisions are etcd's own
 * mod revisions; keys are passed through unchanged, so our data sits where kube-apiserver would put it.
 *
 * - create: Txn(If CreateRevision(key) == 0, Then Put).
 * - update: Txn(If CreateRevision(key) > 0 && ModRevision(key) == expected, Then Put, Else Get); the
 *   CreateRevision guard stops `expected == 0` from creating a missing key (etcd compares a missing key's
 *   ModRevision as 0).
 * - delete: Txn(If CreateRevision(key) > 0 [&& ModRevision(key) == expected], Then Delete(prevKv), Else Get).
 * - compact: kube-apiserver's protocol (storage/etcd3/compact.go): record the revision in `compact_rev_key`
 *   (outside any prefix, shared with kube-apiserver), then Compact. `compactedRevision()` reads that key.
 *
 * Reads, writes and compactions are unary gRPC calls of our own (`_grpc.ts`, `_proto.ts`); watches and the
 * status call go through the etcd3 package. A unary call that could not reach etcd is tried again until its
 * deadline; as with any etcd client, a write whose response was lost may be reported as KeyExists /
 * Conflict against its own result. etcd3's per-host circuit breaker is off: after three failed requests in
 * a row it failed every request for 5 seconds, which etcd's Go client (kube-apiserver's) never does.
 * Requests in flight are bounded (`maxInflightRequests`), as kube-apiserver's request limits bound
 * what reaches etcd: an unbounded burst makes etcd refuse requests with "etcdserver: too many requests".
 */
import { noop } from 'cockatiel';
import { Etcd3 } from 'etcd3';
import {
  Compacted,
  Conflict,
  FutureRevision,
  KeyExists,
  KeyNotFound,
  type Backend,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type Watch,
} from '../backend.js';
import { EtcdWatch } from './_watch.js';
import { GrpcChannel } from './_grpc.js';
import {
  decodeRangeResponse,
  decodeTxnResponse,
  encodeRangeRequest,
  encodeTxnRequest,
  ProtoWriter,
  type Compare,
  type EtcdKeyValue,
  type RangeRequest,
  type RangeResponse,
  type RequestOp,
  type TxnResponse,
} from './_proto.js';

export interface EtcdBackendOptions {
  /** Client URLs, e.g. `http://127.0.0.1:2379`. */
  readonly endpoints: readonly string[];
  /**
   * The part of etcd's key space this cluster owns, as kube-apiserver's `--etcd-prefix` (default
   * `/registry/`). Keys are not rewritten: every key and list/watch prefix given to the backend must
   * start with it, and a call that breaks this throws a RangeError (a bug in the caller).
   */
  readonly prefix?: string;
  /** Undelivered events a watch buffers before it pauses its stream. Default 10000. */
  readonly watchBufferEvents?: number;
  /** Deadline of a unary request in milliseconds, from when it is sent (not while it waits for a slot). Default 30000. */
  readonly requestTimeoutMs?: number;
  /**
   * Unary requests in flight at once; more wait their turn. Default 600, kube-apiserver's default request
   * limits (`--max-requests-inflight` 400 plus `--max-mutating-requests-inflight` 200).
   */
  readonly maxInflightRequests?: number;
  /**
   * kube-apiserver's compactor (`--etcd-compaction-interval`, default 5 minutes): at each tick the history
   * older than the previous tick is compacted away, or `false` for none (compact() still works).
   */
  readonly compaction?: { readonly intervalMs?: number } | false;
  /** Where failures of background work (the compactor) are reported; default standard error, as kube-apiserver logs them. */
  readonly onBackgroundError?: (err: unknown) => void;
}

/** Runs at most `limit` requests at once; the others start in arrival order as slots free up. */
export class RequestSlots {
  #inflight = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  async run<T>(request: () => Promise<T>): Promise<T> {
    if (this.#inflight < this.limit) this.#inflight++;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      return await request();
    } finally {
      // The slot passes to the next waiting request, if any.
      const next = this.#waiting.shift();
      if (next !== undefined) next();
      else this.#inflight--;
    }
  }
}

export const defaultEtcdPrefix = '/registry/';

/** kube-apiserver's key for the last compacted revision (storage/etcd3/compact.go `compactRevKey`). */
export const compactRevKey = 'compact_rev_key';

/** The first key after every key with the prefix (clientv3.GetPrefixRangeEnd). */
export function prefixRangeEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if ((end[i] ?? 0) < 0xff) {
      end[i] = (end[i] ?? 0) + 1;
      return end.subarray(0, i + 1);
    }
  }
  // Only 0xff bytes: everything after the prefix ("\0" means no end in etcd).
  return Buffer.from([0]);
}

/** The first key a list may return: the prefix, or the key right after `continueFrom` if that is later. */
function listStart(prefix: Buffer, continueFrom: string | undefined): Buffer {
  if (continueFrom === undefined) return prefix;
  const after = Buffer.from(`${continueFrom}\0`);
  return Buffer.compare(after, prefix) > 0 ? after : prefix;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function isCompactedError(err: unknown): boolean {
  return errorMessage(err).includes('required revision has been compacted');
}

function isFutureRevisionError(err: unknown): boolean {
  return errorMessage(err).includes('required revision is a future revision');
}

/** CompactionRequest { revision = 1; physical = 2 }, physical: answered once the compaction is done. */
function compactionRequest(revision: number): Buffer {
  return new ProtoWriter(16).uint(1, revision).bool(2, true).finish();
}

/** Our form of a stored key-value. */
function toKeyValue(kv: EtcdKeyValue): KeyValue {
  return { key: kv.key.toString(), value: kv.value, createRevision: kv.createRevision, modRevision: kv.modRevision };
}

export class EtcdBackend implements Backend {
  readonly #opts: EtcdBackendOptions;
  readonly #prefix: string;
  #client: Etcd3 | undefined;
  #channel: GrpcChannel | undefined;
  #compactTimer: NodeJS.Timeout | undefined;
  /** The compactor's logical time (compact_rev_key's version) and the revision it compacts to next. */
  #compactTime = 0;
  #compactNext = 0;
  #compacting = false;
  readonly #watches = new Set<EtcdWatch>();
  #closed = false;
  readonly #slots: RequestSlots;

  constructor(opts: EtcdBackendOptions) {
    if (opts.endpoints.length === 0) throw new Error('etcd backend needs at least one endpoint');
    this.#opts = opts;
    this.#prefix = opts.prefix ?? defaultEtcdPrefix;
    this.#slots = new RequestSlots(Math.max(1, opts.maxInflightRequests ?? 600));
  }

  get prefix(): string {
    return this.#prefix;
  }

  /** Creates the client and checks that etcd answers. */
  async start(): Promise<void> {
    if (this.#client !== undefined || this.#closed) throw new Error('EtcdBackend.start() called twice');
    const timeout = this.#opts.requestTimeoutMs ?? 30_000;
    this.#channel = new GrpcChannel(this.#opts.endpoints);
    this.#client = new Etcd3({
      hosts: [...this.#opts.endpoints],
      grpcOptions: {
        // Unpaged lists can be far larger than gRPC's default 4 MiB; etcd's Go client (which kube-apiserver
        // uses) defaults to math.MaxInt32 (client/v3/options.go defaultMaxCallRecvMsgSize).
        'grpc.max_receive_message_length': 2 ** 31 - 1,
        // kube-apiserver's keepalive (storagebackend/factory/etcd3.go keepaliveTime / keepaliveTimeout), so
        // a watch on a dead etcd is noticed and reconnected.
        'grpc.keepalive_time_ms': 30_000,
        'grpc.keepalive_timeout_ms': 10_000,
      },
      defaultCallOptions: (ctx) => (ctx.isStream ? {} : { deadline: Date.now() + timeout }),
      faultHandling: { host: () => noop },
    });
    try {
      await this.currentRevision();
    } catch (err) {
      throw new Error(`etcd at ${this.#opts.endpoints.join(', ')} did not answer: ${errorMessage(err)}`, {
        cause: err,
      });
    }
    const compaction = this.#opts.compaction;
    if (compaction !== false) {
      this.#compactTimer = setInterval(() => this.#compactTick(), compaction?.intervalMs ?? 300_000);
      this.#compactTimer.unref();
    }
  }

  /**
   * One tick of kube-apiserver's compactor (storage/etcd3/compact.go): whoever moves compact_rev_key's
   * version from the time it last saw (a CAS shared by every API server on the etcd) records the revision
   * of the previous tick there and compacts to it; the others learn the new time. The first tick only
   * takes the revision ("we don't compact on bootstrap").
   */
  #compactTick(): void {
    if (this.#compacting || this.#closed) return;
    this.#compacting = true;
    const run = async (): Promise<void> => {
      const key = Buffer.from(compactRevKey);
      const res = await this.#txn(
        [{ key, target: 'Version', result: 'Equal', value: this.#compactTime }],
        [{ put: { key, value: Buffer.from(String(this.#compactNext)) } }],
        [{ range: { key } }],
      );
      const rev = this.#compactNext;
      this.#compactNext = res.revision;
      if (!res.succeeded) {
        const op = res.responses[0];
        this.#compactTime = op !== undefined && 'range' in op ? (op.range.kvs[0]?.version ?? 0) : 0;
        return;
      }
      this.#compactTime++;
      if (rev !== 0) await this.#compactTo(rev);
    };
    run()
      .catch((err: unknown) => {
        if (this.#opts.onBackgroundError !== undefined) this.#opts.onBackgroundError(err);
        else console.error(`etcd: compaction failed: ${errorMessage(err)}`);
      })
      .finally(() => {
        this.#compacting = false;
      });
  }

  async currentRevision(): Promise<number> {
    const res = await this.#range({ key: Buffer.from(compactRevKey), countOnly: true });
    return res.revision;
  }

  async get(key: string): Promise<KeyValue | undefined> {
    this.#checkKey(key);
    const res = await this.#range({ key: Buffer.from(key) });
    const kv = res.kvs[0];
    return kv === undefined ? undefined : toKeyValue(kv);
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    this.#checkKey(prefix);
    const start = listStart(Buffer.from(prefix), opts.continueFrom);
    const revision = opts.revision !== undefined && opts.revision > 0 ? opts.revision : 0;
    const limit = opts.limit !== undefined && opts.limit > 0 ? opts.limit : 0;
    const res = await this.#range({ key: start, rangeEnd: prefixRangeEnd(Buffer.from(prefix)), revision, limit });
    return {
      items: res.kvs.map(toKeyValue),
      revision: revision > 0 ? revision : res.revision,
      more: res.more,
    };
  }

  async count(prefix: string): Promise<number> {
    this.#checkKey(prefix);
    const res = await this.#range({ key: Buffer.from(prefix), rangeEnd: prefixRangeEnd(Buffer.from(prefix)), countOnly: true });
    return res.count;
  }

  async create(key: string, value: Uint8Array): Promise<number> {
    this.#checkKey(key);
    const k = Buffer.from(key);
    const res = await this.#txn([{ key: k, target: 'Create', result: 'Equal', value: 0 }], [{ put: { key: k, value } }], []);
    if (!res.succeeded) throw new KeyExists(key);
    return res.revision;
  }

  async update(key: string, value: Uint8Array, expectedRevision: number): Promise<number> {
    this.#checkKey(key);
    const k = Buffer.from(key);
    const res = await this.#txn(
      [
        { key: k, target: 'Create', result: 'Greater', value: 0 },
        { key: k, target: 'Mod', result: 'Equal', value: expectedRevision },
      ],
      [{ put: { key: k, value } }],
      [{ range: { key: k } }],
    );
    if (!res.succeeded) throw this.#preconditionFailure(key, res);
    return res.revision;
  }

  async delete(key: string, expectedRevision?: number): Promise<{ revision: number; prev: KeyValue }> {
    this.#checkKey(key);
    const k = Buffer.from(key);
    const compare: Compare[] = [{ key: k, target: 'Create', result: 'Greater', value: 0 }];
    if (expectedRevision !== undefined) compare.push({ key: k, target: 'Mod', result: 'Equal', value: expectedRevision });
    const res = await this.#txn(compare, [{ deleteRange: { key: k, prevKv: true } }], [{ range: { key: k } }]);
    if (!res.succeeded) throw this.#preconditionFailure(key, res);
    const op = res.responses[0];
    const prev = op !== undefined && 'deleteRange' in op ? op.deleteRange.prevKvs[0] : undefined;
    if (prev === undefined) throw new KeyNotFound(key);
    return { revision: res.revision, prev: toKeyValue(prev) };
  }

  watch(prefix: string, afterRevision: number): Watch {
    this.#checkKey(prefix);
    const w = new EtcdWatch({
      client: this.#etcd(),
      prefix: Buffer.from(prefix),
      end: prefixRangeEnd(Buffer.from(prefix)),
      afterRevision,
      maxBuffered: Math.max(1, this.#opts.watchBufferEvents ?? 10_000),
      onClose: (closed) => this.#watches.delete(closed),
    });
    this.#watches.add(w);
    w.start();
    return w;
  }

  async compact(revision: number): Promise<void> {
    const key = Buffer.from(compactRevKey);
    for (;;) {
      const cur = await this.#range({ key });
      if (revision > cur.revision) throw new FutureRevision(revision, cur.revision);
      const kv = cur.kvs[0];
      const recorded = kv === undefined ? 0 : Number(kv.value.toString());
      if (revision <= recorded) return;
      const res = await this.#txn(
        [{ key, target: 'Mod', result: 'Equal', value: kv === undefined ? 0 : kv.modRevision }],
        [{ put: { key, value: Buffer.from(String(revision)) } }],
        [],
      );
      if (res.succeeded) break;
      // Another compactor moved the record meanwhile: look again.
    }
    await this.#compactTo(revision);
  }

  /** etcd's Compact; done already when someone (etcd's auto-compaction, another API server) compacted further. */
  async #compactTo(revision: number): Promise<void> {
    try {
      await this.#unary('Compact', compactionRequest(revision));
    } catch (err) {
      if (!isCompactedError(err)) throw err;
    }
  }

  async compactedRevision(): Promise<number> {
    const res = await this.#range({ key: Buffer.from(compactRevKey) });
    const kv = res.kvs[0];
    return kv === undefined ? 0 : Number(kv.value.toString());
  }

  async dbSize(): Promise<number> {
    const status: object = await this.#etcd().maintenance.status();
    const size = 'dbSize' in status ? status.dbSize : 'db_size' in status ? status.db_size : 0;
    return Number(size);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#compactTimer !== undefined) clearInterval(this.#compactTimer);
    this.#compactTimer = undefined;
    for (const w of [...this.#watches]) w.close();
    this.#watches.clear();
    const client = this.#client;
    this.#client = undefined;
    client?.close();
    this.#channel?.close();
    this.#channel = undefined;
  }

  #etcd(): Etcd3 {
    if (this.#client === undefined) {
      throw new Error(this.#closed ? 'storage backend is closed' : 'storage backend is not started');
    }
    return this.#client;
  }

  #checkKey(key: string): void {
    if (!key.startsWith(this.#prefix)) {
      throw new RangeError(`key ${JSON.stringify(key)} is outside the storage prefix ${JSON.stringify(this.#prefix)}`);
    }
  }

  /**
   * A call of etcd's KV service in one of the request slots, with the request deadline counted from when it
   * leaves the queue for a slot: the slots stand for kube-apiserver's request limits, which hold a request
   * before its handler runs, and its etcd call's deadline starts when the handler makes the call. Counted
   * from the queue, a call that waited there reached etcd with little time left, and each retry of it
   * was another call with less. etcd answers a flood of calls about to expire with RST_STREAM
   * ENHANCE_YOUR_CALM (seen with 5,000 to 10,000 concurrent calls whose deadlines pass within a second).
   */
  async #unary(method: 'Range' | 'Txn' | 'Compact', request: Uint8Array): Promise<Buffer> {
    const channel = this.#channel;
    if (channel === undefined) throw new Error(this.#closed ? 'storage backend is closed' : 'storage backend is not started');
    const timeoutMs = this.#opts.requestTimeoutMs ?? 30_000;
    return this.#slots.run(() => channel.unary(`/etcdserverpb.KV/${method}`, request, Date.now() + timeoutMs));
  }

  async #range(req: RangeRequest): Promise<RangeResponse> {
    try {
      return decodeRangeResponse(await this.#unary('Range', encodeRangeRequest(req)));
    } catch (err) {
      throw await this.#translate(err, req.revision ?? 0);
    }
  }

  async #txn(compare: Compare[], success: RequestOp[], failure: RequestOp[]): Promise<TxnResponse> {
    return decodeTxnResponse(await this.#unary('Txn', encodeTxnRequest(compare, success, failure)));
  }

  async #translate(err: unknown, requested: number): Promise<unknown> {
    if (isCompactedError(err)) {
      const compacted = await this.compactedRevision().catch(() => requested);
      return new Compacted(requested, Math.max(compacted, requested));
    }
    if (isFutureRevisionError(err)) {
      const current = await this.currentRevision().catch(() => requested - 1);
      return new FutureRevision(requested, current);
    }
    return err;
  }

  #preconditionFailure(key: string, res: TxnResponse): Error {
    const op = res.responses[0];
    const kv = op !== undefined && 'range' in op ? op.range.kvs[0] : undefined;
    return kv === undefined ? new KeyNotFound(key) : new Conflict(key, toKeyValue(kv));
  }
}

/** Opens a started etcd backend. */
export async function openEtcdBackend(opts: EtcdBackendOptions): Promise<EtcdBackend> {
  const backend = new EtcdBackend(opts);
  try {
    await backend.start();
  } catch (err) {
    await backend.close();
    throw err;
  }
  return backend;
}
