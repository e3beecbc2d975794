export { admitPod, podMatchesNodeAffinity, podRequests, rejectionMessage, toleratesTaint, admissionReasons, type AdmitResult } from './admission.js';
export {
  initialNode,
  nodeStatus,
  nodeConditions,
  readyCondition,
  nodeCapacity,
  nodeAllocatable,
  kubeletNodeLabels,
  defaultOsImage,
  defaultKernelVersion,
  windowsOsVersion,
  cniNotInitializedMessage,
  nodeConditionReasons,
  defaultKubeletVersion,
  defaultContainerRuntimeVersion,
  kubeletPort,
  type SimulatedNodeSpec,
} from './node-status.js';
export {
  PodWorker,
  formatPod,
  containerEventReasons,
  waitingReasons,
  windowsOsMismatchError,
  defaultPodWorkerTimings,
  type PodWorkerContext,
  type PodWorkerTimings,
  type SyncResult,
} from './pod-worker.js';
export { behaviourOf, parseDurationMs, runsToCompletion, simulateAnnotation, defaultCompletionMs, defaultInitContainerMs, type SimulatedBehaviour } from './simulate.js';
