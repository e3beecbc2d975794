/** Plugin names, as kube-scheduler spells them (pkg/scheduler/framework/plugins/names/names.go). */
export const names = {
  PrioritySort: 'PrioritySort',
  DefaultBinder: 'DefaultBinder',
  DefaultPreemption: 'DefaultPreemption',
  DynamicResources: 'DynamicResources',
  ImageLocality: 'ImageLocality',
  InterPodAffinity: 'InterPodAffinity',
  NodeAffinity: 'NodeAffinity',
  NodeName: 'NodeName',
  NodePorts: 'NodePorts',
  NodeResourcesBalancedAllocation: 'NodeResourcesBalancedAllocation',
  NodeResourcesFit: 'NodeResourcesFit',
  NodeUnschedulable: 'NodeUnschedulable',
  NodeVolumeLimits: 'NodeVolumeLimits',
  PodTopologySpread: 'PodTopologySpread',
  SchedulingGates: 'SchedulingGates',
  TaintToleration: 'TaintToleration',
  VolumeBinding: 'VolumeBinding',
  VolumeRestrictions: 'VolumeRestrictions',
  VolumeZone: 'VolumeZone',
} as const;
export type PluginName = (typeof names)[keyof typeof names];
