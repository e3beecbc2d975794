/**
 * What containerd does when the kubelet asks it to pull an image on a given host: resolve the tag in the
 * simulated registry, pick the manifest for the host's platform, and report the size; or fail with
 * containerd's error text. Also decides whether a pulled image will fail when started (wrong architecture
 * of a single-manifest image, wrong Windows build).
 */
import type { ImageCatalog } from './catalog.js';
import { simulatedDigest } from './catalog.js';
import type { ImageReference } from './image-ref.js';
import { formatPlatform, normalizePlatform, platformMatches, selectPlatform, windowsHostAndContainerCompatible, type Platform } from './platform.js';

/** How a pulled image fails when its container starts. */
export type StartFailure =
  /** Linux binaries for another architecture: the process exits at once with `exec format error`. */
  | { readonly kind: 'execFormat' }
  /** A Windows image whose build the host cannot run: HCS refuses to create the container. */
  | { readonly kind: 'osMismatch' };

export interface ResolvedImage {
  readonly ref: ImageReference;
  readonly platform: Platform;
  readonly sizeBytes: number;
  readonly mediaType: 'index' | 'manifest';
  /** `docker.io/library/nginx@sha256:...`: the repo digest (`imageID` of container statuses). */
  readonly repoDigest: string;
  /** `sha256:...` of the image config: containerd's image id. */
  readonly imageId: string;
  readonly startFailure?: StartFailure;
}

export type PullResolution = { readonly ok: true; readonly image: ResolvedImage } | { readonly ok: false; readonly message: string };

/** containerd CRI error for an index with no manifest for the host. */
export function noMatchingManifestMessage(normalized: string): string {
  return `rpc error: code = NotFound desc = failed to pull and unpack image "${normalized}": no match for platform in manifest: not found`;
}

/** containerd CRI error for a tag the registry does not have. */
export function referenceNotFoundMessage(normalized: string): string {
  return `rpc error: code = NotFound desc = failed to pull and unpack image "${normalized}": failed to resolve reference "${normalized}": ${normalized}: not found`;
}

/** Resolves a pull of `ref` on a host of platform `host` (Windows hosts carry `osVersion`). */
export function resolvePull(catalog: ImageCatalog, ref: ImageReference, host: Platform): PullResolution {
  const found = catalog.lookup(ref);
  if (!found.found) return { ok: false, message: referenceNotFoundMessage(ref.normalized) };
  const { manifest } = found;
  const h = normalizePlatform(host);
  const repoDigest = `${ref.repository}@${found.digest}`;
  if (manifest.mediaType === 'index') {
    const i = selectPlatform(h, manifest.platforms.map((p) => p.platform));
    const entry = i >= 0 ? manifest.platforms[i] : undefined;
    if (entry === undefined) return { ok: false, message: noMatchingManifestMessage(ref.normalized) };
    return {
      ok: true,
      image: { ref, platform: entry.platform, sizeBytes: entry.sizeBytes, mediaType: 'index', repoDigest, imageId: configDigest(ref, entry.platform) },
    };
  }
  const entry = manifest.platforms[0];
  if (entry === undefined) return { ok: false, message: noMatchingManifestMessage(ref.normalized) };
  const p = normalizePlatform(entry.platform);
  // A single manifest is pulled whatever its platform; only the OS must be one the runtime can unpack.
  if (p.os !== h.os) return { ok: false, message: noMatchingManifestMessage(ref.normalized) };
  let startFailure: StartFailure | undefined;
  if (!platformMatches({ os: h.os, architecture: h.architecture, ...(h.variant !== undefined ? { variant: h.variant } : {}) }, { os: p.os, architecture: p.architecture, ...(p.variant !== undefined ? { variant: p.variant } : {}) })) {
    startFailure = h.os === 'windows' ? { kind: 'osMismatch' } : { kind: 'execFormat' };
  } else if (h.os === 'windows' && p.osVersion !== undefined && !windowsHostAndContainerCompatible(h.osVersion ?? '', p.osVersion)) {
    startFailure = { kind: 'osMismatch' };
  }
  return {
    ok: true,
    image: {
      ref,
      platform: p,
      sizeBytes: entry.sizeBytes,
      mediaType: 'manifest',
      repoDigest,
      imageId: configDigest(ref, p),
      ...(startFailure !== undefined ? { startFailure } : {}),
    },
  };
}

function configDigest(ref: ImageReference, p: Platform): string {
  return simulatedDigest('config', ref.repository, ref.tag ?? '', ref.digest ?? '', formatPlatform(p), p.osVersion ?? '');
}

/** Simulated pull time: a fixed round-trip latency plus the size over the node's bandwidth. */
export function pullDurationMs(sizeBytes: number, bandwidthBytesPerSecond: number, latencyMs: number): number {
  return Math.round(latencyMs + (sizeBytes / bandwidthBytesPerSecond) * 1000);
}
