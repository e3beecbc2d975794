/**
 * The reading side of a watch whose events are pushed by a producer (the API server's watch cache, a message
 * channel): events wait in order until the consumer iterates; `end()` (the producer's) finishes the stream
 * after what is queued; `close()` (the consumer's) stops it at once and tells the producer through `onClose`.
 */
import type { WatchEvent, WatchStream } from './client.js';

export class WatchQueue<T> {
  private items: WatchEvent<T>[] = [];
  private head = 0;
  private ended = false;
  private wake: (() => void) | undefined;

  constructor(private readonly onClose: () => void = () => {}) {}

  /** True once ended or closed: pushes are ignored from then on. */
  get isEnded(): boolean {
    return this.ended;
  }

  push(e: WatchEvent<T>): void {
    if (this.ended) return;
    this.items.push(e);
    this.notify();
  }

  /** The producer is done: the consumer still reads what is queued. */
  end(): void {
    this.ended = true;
    this.notify();
  }

  /** The consumer is done (idempotent). */
  close(): void {
    if (this.ended) return;
    this.ended = true;
    this.onClose();
    this.notify();
  }

  stream(): WatchStream<T> {
    return {
      close: () => this.close(),
      [Symbol.asyncIterator]: (): AsyncIterator<WatchEvent<T>> => ({
        next: async (): Promise<IteratorResult<WatchEvent<T>>> => {
          for (;;) {
            const e = this.take();
            if (e !== undefined) return { value: e, done: false };
            if (this.ended) return { value: undefined, done: true };
            await new Promise<void>((resolve) => (this.wake = resolve));
          }
        },
        return: async (): Promise<IteratorResult<WatchEvent<T>>> => {
          this.close();
          return { value: undefined, done: true };
        },
      }),
    };
  }

  private take(): WatchEvent<T> | undefined {
    if (this.head >= this.items.length) return undefined;
    const e = this.items[this.head++];
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return e;
  }

  private notify(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }
}
