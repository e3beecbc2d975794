/** The in-tree plugin registry (pkg/scheduler/framework/plugins/registry.go). */
import { names } from '../framework/names.js';
import { Registry } from '../framework/registry.js';
import * as defaultBinder from './default-binder/default-binder.js';
import * as defaultPreemption from './default-preemption/default-preemption.js';
import * as imageLocality from './image-locality/image-locality.js';
import * as interPodAffinity from './inter-pod-affinity/inter-pod-affinity.js';
import * as nodeAffinity from './node-affinity/node-affinity.js';
import * as nodeName from './node-name/node-name.js';
import * as nodePorts from './node-ports/node-ports.js';
import * as balancedAllocation from './node-resources-balanced-allocation/node-resources-balanced-allocation.js';
import * as nodeResourcesFit from './node-resources-fit/node-resources-fit.js';
import * as nodeUnschedulable from './node-unschedulable/node-unschedulable.js';
import * as podTopologySpread from './pod-topology-spread/pod-topology-spread.js';
import * as prioritySort from './priority-sort/priority-sort.js';
import * as schedulingGates from './scheduling-gates/scheduling-gates.js';
import * as taintToleration from './taint-toleration/taint-toleration.js';
import * as volumeBinding from './volume-binding/volume-binding.js';

export function newInTreeRegistry(): Registry {
  return new Registry({
    [names.SchedulingGates]: schedulingGates.create,
    [names.PrioritySort]: prioritySort.create,
    [names.NodeUnschedulable]: nodeUnschedulable.create,
    [names.NodeName]: nodeName.create,
    [names.TaintToleration]: taintToleration.create,
    [names.NodeAffinity]: nodeAffinity.create,
    [names.NodePorts]: nodePorts.create,
    [names.NodeResourcesFit]: nodeResourcesFit.create,
    [names.VolumeBinding]: volumeBinding.create,
    [names.PodTopologySpread]: podTopologySpread.create,
    [names.InterPodAffinity]: interPodAffinity.create,
    [names.DefaultPreemption]: defaultPreemption.create,
    [names.NodeResourcesBalancedAllocation]: balancedAllocation.create,
    [names.ImageLocality]: imageLocality.create,
    [names.DefaultBinder]: defaultBinder.create,
  });
}
