/**
 * The latency of API calls. A call is reported with two parts: the time it waited in API Priority and
 * Fairness before it started (`queuedMs`), and its processing time, from its start to its answer
 * (`ms`). The processing time is upstream's API call latency SLI (`apiserver_request_sli_duration_seconds`;
 * sig-scalability's api_call_latency.md: "from the moment when apiserver gets the request to last byte of
 * response sent to the user, excluding latency incurred by webhooks and priority & fairness queue wait
 * times"); the sum is what `apiserver_request_duration_seconds` counts. The channels that serve the
 * components' and the node host's calls report here (HTTPS calls are not reported); benchmarks observe.
 */

/** `verb` as the client called it; `resource` with its subresource (`pods/status`). */
export type CallObserver = (verb: string, resource: string, ms: number, queuedMs: number) => void;

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

  report(verb: string, resource: string, ms: number, queuedMs: number): void {
    for (const o of this.observers) o(verb, resource, ms, queuedMs);
  }
}
