/** `kubemix check`: offline placement reports for manifests and Helm output. An explicit export list. */
export { runCheck, outcomeOnNode, type CheckOptions } from './simulate.js';
export { loadManifests, parseManifests, InputError, type InputObject } from './input.js';
export { clusterFromSpec, clusterFromClient, simNodeOf, groupKey, nodeGroups, type ClusterView, type SimNode } from './cluster.js';
export { DryRunApi, type CreateResult, type DryRunApiOptions } from './dry-run.js';
export { podsOfWorkload, newReplicaSet, jobOfCronJob, workloadKinds, type WorkloadPods } from './workloads.js';
export { removedApi, noMatchesMessage, type RemovedApi } from './removed-apis.js';
export { renderReport, renderTable, renderJUnit, outputFormats, type OutputFormat, type RenderOptions } from './render.js';
export * from './types.js';
