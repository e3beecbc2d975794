// The scheduler: framework, in-tree plugins, queue, cache, the scheduling cycle, the API-client driver,
// leader election and the benchmark. An explicit export list.
export { Scheduler, truncateMessage, nodeUpdateActions, assignedPodUpdateActions, noteLengthLimit, type SchedulerOptions, type SchedulerLeaderElectionOptions } from './scheduler.js';
export { LeaderElector, type LeaderElectorOptions } from './leader-election.js';
export { SchedulingAlgorithm, selectHost, clearNominatedNode, type CycleOutcome, type ScheduleResult, type SchedulePodOutcome, type SchedulingAlgorithmOptions } from './schedule-one.js';
export { Cache } from './cache/cache.js';
export { Snapshot } from './cache/snapshot.js';
export { SchedulingQueue, type QueuedPodInfo, type RegisteredHint, type SchedulingQueueOptions } from './queue/scheduling-queue.js';
export { Framework, type FrameworkOptions, type NamespaceLister, type Nominator, type NodePluginScores } from './framework/runtime.js';
export { Registry, type PluginFactory } from './framework/registry.js';
export { defaultProfile, defaultPlugins, defaultSchedulerName, type PluginSpec, type Profile } from './framework/profile.js';
export { names, type PluginName } from './framework/names.js';
export { Code, Status, newStatus } from './framework/status.js';
export { CycleState, type StateData } from './framework/cycle-state.js';
export { FitError, NodeToStatus, newDiagnosis, type Diagnosis } from './framework/fit-error.js';
export { NodeInfo, PodInfo, HostPortInfo } from './framework/types.js';
export { numFeasibleNodesToFind, minFeasibleNodesToFind, minFeasibleNodesPercentageToFind } from './framework/feasible.js';
export * from './framework/interfaces.js';
export { newInTreeRegistry } from './plugins/registry.js';
export { runSchedulerBench, runVariant, benchNodes, benchPods, type BenchOptions, type BenchResult, type BenchVariant } from './bench.js';
