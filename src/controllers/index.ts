// kube-controller-manager for kubemix: the manager, its controller names and registry, the seams controllers
// are built on, and the pure decisions other components call (the eviction check of `pods/eviction`).
export { ControllerManager, createControllerManager, leaseName, leaseNamespace, type ControllerManagerOptions } from './manager.js';
export { controllerFactories, selectControllers, type ControllerFactory, type ControllerOptions } from './registry.js';
export { eventComponents, names, type ControllerName } from './names.js';
export type { Clock, Controller, ControllerContext, EventRecorder, Informer, InformerHandlers, WorkQueue } from './_context.js';
export { LeaderElector, type LeaderElectorOptions } from './_leader-election.js';
export { microTime } from '../util/micro-time.js';
export {
  checkEviction,
  matchingPdbs,
  multiplePdbsMessage,
  violationMessage,
  type CheckEvictionOptions,
  type EvictionDecision,
} from './disruption/eviction.js';
