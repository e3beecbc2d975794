/**
 * `framework.CycleState`: per-scheduling-cycle data plugins share between their extension points.
 * Data written in PreFilter is cloned when preemption or nominated pods evaluate "what if" states.
 */
import type { NodeVerdicts } from './node-verdicts.js';

export interface StateData {
  /** A copy safe to mutate independently (AddPod/RemovePod run on clones). */
  clone(): StateData;
}

export class CycleState {
  private readonly data = new Map<string, StateData>();
  /** Filter plugins whose PreFilter returned Skip. */
  skipFilterPlugins: ReadonlySet<string> = new Set();
  /**
   * The filter plugins to run this cycle (profile order minus skipped ones), fixed after PreFilter so the
   * per-node loop does not look up the skip set for every plugin and node.
   */
  filterPluginsToRun: readonly unknown[] | undefined = undefined;
  /**
   * The verdicts of the first `nodeObjectFilterCount` plugins of `filterPluginsToRun` (node-object filters)
   * for this cycle's question, shared across cycles (see node-verdicts.ts); undefined when none lead.
   */
  nodeVerdicts: NodeVerdicts | undefined = undefined;
  nodeObjectFilterCount = 0;
  /**
   * The positions in the snapshot's list (and node table) of the nodes handed to PreScore and Score, in
   * their order, when the filter loop judged by position; undefined otherwise. Plugins may read the node
   * table's columns at these positions instead of the NodeInfos.
   */
  nodePositions: Int32Array | undefined = undefined;

  /** `nodePositions` when they are those of the `count` nodes being scored, else undefined. */
  positionsOf(count: number): Int32Array | undefined {
    return this.nodePositions?.length === count ? this.nodePositions : undefined;
  }
  /** Score plugins whose PreScore returned Skip. */
  skipScorePlugins: ReadonlySet<string> = new Set();

  read<T extends StateData>(key: string): T | undefined {
    return this.data.get(key) as T | undefined;
  }

  write(key: string, value: StateData): void {
    this.data.set(key, value);
  }

  delete(key: string): void {
    this.data.delete(key);
  }

  clone(): CycleState {
    const c = new CycleState();
    for (const [k, v] of this.data) c.data.set(k, v.clone());
    c.skipFilterPlugins = this.skipFilterPlugins;
    c.skipScorePlugins = this.skipScorePlugins;
    c.filterPluginsToRun = this.filterPluginsToRun;
    c.nodeVerdicts = this.nodeVerdicts;
    c.nodeObjectFilterCount = this.nodeObjectFilterCount;
    c.nodePositions = this.nodePositions;
    return c;
  }
}
