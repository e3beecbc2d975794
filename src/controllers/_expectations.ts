/**
 * `ControllerExpectations` / `UIDTrackingControllerExpectations` (pkg/controller/controller_utils.go): how many
 * creations and deletions a controller still waits to see in its informer before it may act again, so it
 * never creates twice. Records expire after 5 minutes.
 */
import type { Clock } from './_context.js';

export const expectationsTimeoutMs = 5 * 60 * 1000;

interface Record_ {
  add: number;
  del: number;
  at: number;
  deleteKeys: Set<string>;
}

function fulfilled(r: Record_): boolean {
  return r.add <= 0 && r.del <= 0;
}

export class Expectations {
  private readonly records = new Map<string, Record_>();
  constructor(private readonly clock: Clock) {}

  /** True when the controller may sync: no record, both counts reached, or the record expired. */
  satisfied(key: string): boolean {
    const r = this.records.get(key);
    return r === undefined || fulfilled(r) || this.clock.now() - r.at > expectationsTimeoutMs;
  }
  /** True when every expected creation and deletion was seen (or nothing is expected): expiry aside. */
  fulfilled(key: string): boolean {
    const r = this.records.get(key);
    return r === undefined || fulfilled(r);
  }
  /** `SetExpectations` with the pod keys to be deleted. */
  expect(key: string, creations: number, deletions: readonly string[]): void {
    this.records.set(key, { add: creations, del: deletions.length, at: this.clock.now(), deleteKeys: new Set(deletions) });
  }
  expectCreations(key: string, n: number): void {
    this.records.set(key, { add: n, del: 0, at: this.clock.now(), deleteKeys: new Set() });
  }
  /** Expects the deletion of these pod keys. */
  expectDeletions(key: string, podKeys: readonly string[]): void {
    this.records.set(key, { add: 0, del: podKeys.length, at: this.clock.now(), deleteKeys: new Set(podKeys) });
  }
  creationObserved(key: string): void {
    const r = this.records.get(key);
    if (r !== undefined) r.add--;
  }
  /** A pod was seen deleted (or marked for deletion); counts only once per pod key. */
  deletionObserved(key: string, podKey: string): void {
    const r = this.records.get(key);
    if (r !== undefined && r.deleteKeys.delete(podKey)) r.del--;
  }
  /** Lowers a creation count without a pod (a create that failed or was skipped). */
  lowerCreations(key: string, n: number): void {
    const r = this.records.get(key);
    if (r !== undefined) r.add -= n;
  }
  delete(key: string): void {
    this.records.delete(key);
  }
  pending(key: string): { add: number; del: number } | undefined {
    const r = this.records.get(key);
    return r === undefined ? undefined : { add: r.add, del: r.del };
  }
}
