/** Quota accounting shared by the ResourceQuota admission plugin and the resource quota controller. */
export * from './resources.js';
export * from './evaluators.js';
