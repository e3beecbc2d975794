/**
 * Pod sandbox creation on the simulated runtime: the RuntimeClass handler must be one the node's containerd
 * is configured with (containerd CRI `getSandboxRuntime`), else the kubelet records `FailedCreatePodSandBox`.
 */

/** Event reason of a failed sandbox creation (`pkg/kubelet/events`). */
export const FailedCreatePodSandBox = 'FailedCreatePodSandBox';

export type SandboxCheck = { readonly ok: true } | { readonly ok: false; readonly message: string };

/**
 * Checks `handler` against the node's configured handlers. `known` undefined means the node accepts every
 * handler (kubemix's default, so RuntimeClasses from the guides with made-up handler names run). The
 * default handler (`''`, no RuntimeClass) is always available.
 */
export function checkRuntimeHandler(handler: string, known: readonly string[] | undefined): SandboxCheck {
  if (handler === '' || known === undefined || known.includes(handler)) return { ok: true };
  return {
    ok: false,
    message: `Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox runtime: no runtime for "${handler}" is configured`,
  };
}

/** The message when the pod's RuntimeClass object does not exist. */
export function runtimeClassNotFoundMessage(name: string): string {
  return `Failed to create pod sandbox: runtimeclass.node.k8s.io "${name}" not found`;
}
