/** Service cluster IP and node port allocation. */
export * from './port-allocator.js';
export * from './ip-allocator.js';
export * from './service-allocation.js';
export { AllocationMap, mathRandomInt, type RandomInt } from './bitmap.js';
