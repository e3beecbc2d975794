/**
 * The latency of API calls, from a call's arrival at the API server to its answer (what kube-apiserver's
 * `apiserver_request_duration_seconds` counts). The channels that serve the components' and the node
 * host's calls report here (HTTPS calls are not reported); benchmarks observe.
 */

/** `verb` as the client called it; `resource` with its subresource (`pods/status`). */
export type CallObserver = (verb: string, resource: string, ms: number) => void;

export class CallLatency {
  private readonly observers = new Set<CallObserver>();

  /** Reports every call answered from now on; returns the function that stops it. */
  observe(observer: CallObserver): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  /** Whether anyone listens (front ends skip the clock otherwise). */
  get observed(): boolean {
    return this.observers.size > 0;
  }

  report(verb: string, resource: string, ms: number): void {
    for (const o of this.observers) o(verb, resource, ms);
  }
}
