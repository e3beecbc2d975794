/**
 * What happens when a container image is used on a node, decided without running anything: for
 * `kubemix check` and other offline reports. Same rules as the simulated runtime (`pull.ts`).
 */
import type { ImageCatalog } from './catalog.js';
import { InvalidImageReferenceError, parseImageReference } from './image-ref.js';
import { formatPlatform, type Platform } from './platform.js';
import { resolvePull } from './pull.js';

export type ImageOutcome =
  | { readonly kind: 'runs'; readonly platform: Platform; readonly sizeBytes: number }
  /** The pull fails: `ErrImagePull`, then `ImagePullBackOff`. */
  | { readonly kind: 'pullFails'; readonly message: string }
  /** Pulls, then every start fails: `exec format error` (CrashLoopBackOff) or the Windows build mismatch (StartError). */
  | { readonly kind: 'startFails'; readonly reason: 'execFormat' | 'osMismatch'; readonly platform: Platform; readonly message: string }
  | { readonly kind: 'invalidName'; readonly message: string };

/** The platform containerd matches for a node (`osVersion` = the full Windows version on Windows). */
export function nodePlatform(node: { os: string; arch: string; windowsBuild?: string; kernelVersion?: string }): Platform {
  if (node.os !== 'windows') return { os: node.os, architecture: node.arch };
  const build = node.windowsBuild ?? '10.0.17763';
  const osVersion = node.kernelVersion?.startsWith(`${build}.`) === true ? node.kernelVersion : `${build}.0`;
  return { os: 'windows', architecture: node.arch, osVersion };
}

/** The outcome of running `image` on a host of platform `host`. */
export function imageOutcome(catalog: ImageCatalog, image: string, host: Platform): ImageOutcome {
  let ref;
  try {
    ref = parseImageReference(image);
  } catch (e) {
    return { kind: 'invalidName', message: e instanceof InvalidImageReferenceError ? e.message : String(e) };
  }
  const r = resolvePull(catalog, ref, host);
  if (!r.ok) return { kind: 'pullFails', message: `Failed to pull image "${image}": ${r.message}` };
  const f = r.image.startFailure;
  if (f === undefined) return { kind: 'runs', platform: r.image.platform, sizeBytes: r.image.sizeBytes };
  const built = `${formatPlatform(r.image.platform)}${r.image.platform.osVersion !== undefined ? ` ${r.image.platform.osVersion}` : ''}`;
  return {
    kind: 'startFails',
    reason: f.kind,
    platform: r.image.platform,
    message:
      f.kind === 'execFormat'
        ? `image "${image}" is a single ${built} manifest: its entrypoint fails with exec format error`
        : `image "${image}" is built for ${built}: The container operating system does not match the host operating system.`,
  };
}
