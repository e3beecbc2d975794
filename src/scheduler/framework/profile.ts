/**
 * Scheduling profiles (KubeSchedulerProfile) and the default one, in upstream's MultiPoint order
 * (pkg/scheduler/apis/config/v1/default_plugins.go, semantics.md section 4).
 *
 * Omitted from the default profile: VolumeRestrictions, NodeVolumeLimits, VolumeZone (and DynamicResources,
 * off by default in 1.32). VolumeBinding sits where upstream puts it, after them.
 */
import { names } from './names.js';

export interface PluginSpec {
  name: string;
  /** Score weight; upstream defaults a missing weight to 1 for score plugins. */
  weight?: number;
  args?: unknown;
}

export interface Profile {
  schedulerName: string;
  /** Plugins in MultiPoint order; each is enabled at every extension point it implements. */
  plugins: readonly PluginSpec[];
  /** Per-profile percentageOfNodesToScore (0/undefined: adaptive). */
  percentageOfNodesToScore?: number;
}

export const defaultSchedulerName = 'default-scheduler';

export const defaultPlugins: readonly PluginSpec[] = [
  { name: names.SchedulingGates },
  { name: names.PrioritySort },
  { name: names.NodeUnschedulable },
  { name: names.NodeName },
  { name: names.TaintToleration, weight: 3 },
  { name: names.NodeAffinity, weight: 2 },
  { name: names.NodePorts },
  { name: names.NodeResourcesFit, weight: 1 },
  { name: names.VolumeBinding },
  { name: names.PodTopologySpread, weight: 2 },
  { name: names.InterPodAffinity, weight: 2 },
  { name: names.DefaultPreemption },
  { name: names.NodeResourcesBalancedAllocation, weight: 1 },
  { name: names.ImageLocality, weight: 1 },
  { name: names.DefaultBinder },
];

export function defaultProfile(schedulerName: string = defaultSchedulerName): Profile {
  return { schedulerName, plugins: defaultPlugins };
}
