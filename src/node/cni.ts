/**
 * How a simulated node decides that a pod network (CNI) is installed: a network-plugin pod runs on it.
 * A real kubelet learns it from containerd, which reports NetworkReady once a plugin wrote its config to
 * /etc/cni/net.d; the plugin's DaemonSet pod is what writes it. The config stays after the pod goes, so a
 * node, once network-ready, stays so.
 *
 * A pod counts as a network plugin when any of these holds:
 * - annotation `kubemix.dev/cni: "true"`;
 * - label `app` or `k8s-app` is `flannel`, `calico-node`, `cilium` or `weave-net`;
 * - one of its (non-init) containers runs an image of flannel (`flannel/flannel`, `sigwindowstools/flannel`,
 *   `rancher/mirrored-flannelcni-flannel`), calico (`calico/node`) or cilium (`cilium/cilium`).
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { parseImageReference } from './runtime/image-ref.js';

export const cniAnnotation = 'kubemix.dev/cni';

const pluginApps = new Set(['flannel', 'calico-node', 'cilium', 'weave-net']);
const pluginImage = /(^|\/)(flannel|mirrored-flannelcni-flannel|calico\/node|cilium\/cilium)$/;

export function isNetworkPluginPod(pod: Pod): boolean {
  if (pod.metadata?.annotations?.[cniAnnotation] === 'true') return true;
  const labels = pod.metadata?.labels ?? {};
  if (pluginApps.has(labels['app'] ?? '') || pluginApps.has(labels['k8s-app'] ?? '')) return true;
  return (pod.spec?.containers ?? []).some((c) => {
    try {
      return pluginImage.test(parseImageReference(c.image ?? '').path);
    } catch {
      return false;
    }
  });
}
