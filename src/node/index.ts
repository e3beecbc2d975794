// Simulated nodes: kubelet agent, container runtime (image catalog, platform checks, pulls), CNI readiness,
// kube-proxy NodePorts, and the kube-system add-ons kubemix pre-installs.
export { NodeHost, nodeLeaseNamespace, type NodeHostOptions, type NodeHostView } from './agent.js';
export { isNetworkPluginPod, cniAnnotation } from './cni.js';
export { PodIPAllocator } from './ip-allocator.js';
export * from './kubelet/index.js';
export * from './runtime/index.js';
export * from './proxy/index.js';
export { kubeSystemAddons, flannelManifests, kubeProxyManifests, coreDNSManifests, flannelVersion, flannelCniPluginVersion, coreDNSVersion, type AddonOptions } from './addons.js';
