/**
 * gRPC unary calls over HTTP/2 (node:http2), for the etcd backend's reads and writes: one request message,
 * one response message, the status in the trailers (or in the headers of a trailers-only answer), the
 * deadline as `grpc-timeout`. Nothing else of gRPC (no compression, no interceptors, no load balancing):
 * the calls the backend makes per object write cost a third of what the general client (grpc-js with
 * protobufjs, through the etcd3 package) cost on the API server's thread, where every write is made.
 *
 * One connection at a time, to the first endpoint that answers; a call that could not be sent or whose
 * connection broke before its answer is tried again (on the next endpoint, after a short backoff) until
 * its deadline, as etcd's own client retries unavailable endpoints. As with any etcd client, a write whose
 * answer was lost may then fail its precondition against its own result.
 */
import { connect, constants, type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders } from 'node:http2';

/** gRPC status codes the backend tells apart. */
export const grpcStatus = { ok: 0, unknown: 2, deadlineExceeded: 4, unavailable: 14 } as const;

/** A call that ended with a gRPC status other than OK; `message` is the server's status message. */
export class GrpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'GrpcError';
  }
}

/** A call that could not reach the server (refused, reset, connection lost before the answer): tried again. */
class Unreachable extends Error {}

/** HTTP/2 flow-control window per stream and per connection: a large list arrives without waiting on window updates. */
const windowBytes = 16 * 1024 * 1024;
const firstRetryMs = 25;
const maxRetryMs = 1000;

/** `grpc-message` is percent-encoded. */
function statusMessage(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function header(h: IncomingHttpHeaders | undefined, name: string): string | undefined {
  const v = h?.[name];
  return Array.isArray(v) ? v[0] : v;
}

export class GrpcChannel {
  #session: ClientHttp2Session | undefined;
  #next = 0;
  #closed = false;

  constructor(private readonly endpoints: readonly string[]) {
    if (endpoints.length === 0) throw new Error('gRPC channel needs at least one endpoint');
  }

  /** Calls `path` (`/package.Service/Method`) with the encoded request; resolves to the encoded response. */
  async unary(path: string, request: Uint8Array, deadline: number): Promise<Buffer> {
    let delay = firstRetryMs;
    for (;;) {
      try {
        return await this.#attempt(path, request, deadline);
      } catch (err) {
        if (!(err instanceof Unreachable) || this.#closed) throw err instanceof Unreachable ? new GrpcError(grpcStatus.unavailable, err.message) : err;
        const left = deadline - Date.now();
        if (left <= 0) throw new GrpcError(grpcStatus.deadlineExceeded, `context deadline exceeded (last error: ${err.message})`);
        await new Promise((resolve) => setTimeout(resolve, Math.min(delay, left)));
        delay = Math.min(delay * 2, maxRetryMs);
      }
    }
  }

  close(): void {
    this.#closed = true;
    const s = this.#session;
    this.#session = undefined;
    s?.close();
  }

  #connection(): ClientHttp2Session {
    const current = this.#session;
    if (current !== undefined && !current.closed && !current.destroyed) return current;
    const endpoint = this.endpoints[this.#next % this.endpoints.length] as string;
    const s = connect(endpoint, { settings: { initialWindowSize: windowBytes } });
    const drop = (): void => {
      if (this.#session !== s) return;
      this.#session = undefined;
      // The next connection tries the next endpoint.
      this.#next++;
    };
    s.on('error', drop);
    s.on('goaway', drop);
    s.on('close', drop);
    s.on('connect', () => s.setLocalWindowSize(windowBytes));
    this.#session = s;
    return s;
  }

  #attempt(path: string, request: Uint8Array, deadline: number): Promise<Buffer> {
    if (this.#closed) return Promise.reject(new Error('gRPC channel is closed'));
    const timeoutMs = Math.max(1, deadline - Date.now());
    let stream: ClientHttp2Stream;
    try {
      stream = this.#connection().request({
        [constants.HTTP2_HEADER_METHOD]: 'POST',
        [constants.HTTP2_HEADER_PATH]: path,
        [constants.HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc',
        te: 'trailers',
        'grpc-timeout': `${Math.min(timeoutMs, 99_999_999)}m`,
      });
    } catch (err) {
      return Promise.reject(new Unreachable(err instanceof Error ? err.message : String(err)));
    }
    return new Promise<Buffer>((resolve, reject) => {
      let headers: IncomingHttpHeaders | undefined;
      let trailers: IncomingHttpHeaders | undefined;
      const chunks: Buffer[] = [];
      let settled = false;
      const finish = (err: Error | undefined, value?: Buffer): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (err !== undefined) reject(err);
        else resolve(value as Buffer);
      };
      const timer = setTimeout(() => {
        stream.close(constants.NGHTTP2_CANCEL);
        finish(new GrpcError(grpcStatus.deadlineExceeded, 'context deadline exceeded'));
      }, timeoutMs);
      stream.on('response', (h: IncomingHttpHeaders) => {
        headers = h;
      });
      stream.on('trailers', (t: IncomingHttpHeaders) => {
        trailers = t;
      });
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', (err: Error) => finish(headers === undefined ? new Unreachable(err.message) : new GrpcError(grpcStatus.unavailable, err.message)));
      stream.on('close', () => {
        if (headers === undefined) {
          finish(new Unreachable(`stream closed before an answer (HTTP/2 code ${stream.rstCode ?? 0})`));
          return;
        }
        const code = Number(header(trailers, 'grpc-status') ?? header(headers, 'grpc-status') ?? grpcStatus.unknown);
        if (code !== grpcStatus.ok) {
          finish(new GrpcError(code, statusMessage(header(trailers, 'grpc-message') ?? header(headers, 'grpc-message') ?? '') || `gRPC status ${code}`));
          return;
        }
        const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
        if (body.length < 5 || body[0] !== 0) {
          finish(new GrpcError(grpcStatus.unknown, body.length < 5 ? 'gRPC answer without a message' : 'gRPC answer is compressed'));
          return;
        }
        const length = body.readUInt32BE(1);
        if (body.length !== 5 + length) {
          finish(new GrpcError(grpcStatus.unknown, `gRPC answer of ${body.length - 5} bytes announced ${length}`));
          return;
        }
        finish(undefined, body.subarray(5));
      });
      const prefix = Buffer.allocUnsafe(5);
      prefix[0] = 0;
      prefix.writeUInt32BE(request.length, 1);
      stream.write(prefix);
      stream.end(request);
    });
  }
}
