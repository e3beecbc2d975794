// The client side of kubemix: the Client seam and its HTTP implementation, informers, work queues, events.
export {
  patchContentTypes,
  type Client,
  type DeleteOptions,
  type KubeList,
  type KubeObject,
  type ListOptions,
  type PatchType,
  type WatchEvent,
  type WatchEventType,
  type WatchOptions,
  type WatchStream,
  type WriteOptions,
} from './client.js';
export { FakeClock, realClock, type Clock, type TimerHandle } from './clock.js';
export { WorkQueue, type WorkQueueOptions } from './workqueue.js';
export {
  createInformer,
  isNewerResourceVersion,
  namespaceIndexFunc,
  objectKey,
  trimManagedFields,
  type Informer,
  type InformerHandlers,
  type InformerOptions,
} from './informer.js';
export { createInformerFactory, type InformerFactory, type InformerFactoryOptions } from './informer-factory.js';
export { createEventRecorder, type EventOptions, type EventRecorder, type EventRecorderOptions } from './events.js';
export { createEventsV1Recorder, type EventsV1Recorder, type EventsV1RecorderOptions } from './events-v1.js';
export { genericServerResponse, HttpClient, type HttpClientOptions } from './http-client.js';
export {
  defaultKubeconfigPath,
  httpClientFromKubeconfig,
  loadKubeconfig,
  writeKubeconfig,
  type LoadedKubeconfig,
  type WriteKubeconfigOptions,
} from './kubeconfig.js';
