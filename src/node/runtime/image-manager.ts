/**
 * The kubelet's image manager for one node (`pkg/kubelet/images/image_manager.go`) on top of the simulated
 * runtime: pull policy, per pod+image back-off (10 s doubling to 300 s), serialized pulls (the kubelet's
 * default `serializeImagePulls: true`), and the events it records, word for word.
 *
 * Pulls take simulated time, so `ensureImageExists` either answers at once or returns a pull in progress;
 * the caller comes back with `completePull` when the clock reaches `doneAtMs`.
 */
import type { ImageCatalog } from './catalog.js';
import { Backoff, formatGoDuration } from './backoff.js';
import { InvalidImageReferenceError, parseImageReference, type ImageReference } from './image-ref.js';
import type { NodeImageStore, StoredImage } from './image-store.js';
import { pullDurationMs, resolvePull, type ResolvedImage } from './pull.js';
import type { Platform } from './platform.js';

export type PullPolicy = 'Always' | 'IfNotPresent' | 'Never';

/** Event reasons of `pkg/kubelet/events/event.go` used for images. */
export const imageEventReasons = {
  PullingImage: 'Pulling',
  PulledImage: 'Pulled',
  FailedToPullImage: 'Failed',
  FailedToInspectImage: 'InspectFailed',
  ErrImageNeverPullPolicy: 'ErrImageNeverPull',
  BackOffPullImage: 'BackOff',
} as const;

/** Container waiting reasons for image problems (`pkg/kubelet/images/types.go`). */
export const imageErrorReasons = {
  ErrImagePull: 'ErrImagePull',
  ErrImagePullBackOff: 'ImagePullBackOff',
  ErrImageNeverPull: 'ErrImageNeverPull',
  ErrInvalidImageName: 'InvalidImageName',
} as const;

export interface KubeletEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

/** The API server's default: `Always` for `:latest` or no tag, else `IfNotPresent`. */
export function defaultPullPolicy(image: string): PullPolicy {
  try {
    const ref = parseImageReference(image);
    return ref.digest === undefined && ref.tag === 'latest' ? 'Always' : 'IfNotPresent';
  } catch {
    return 'IfNotPresent';
  }
}

export type EnsureResult =
  | { readonly kind: 'present'; readonly image: StoredImage; readonly events: KubeletEvent[] }
  | { readonly kind: 'error'; readonly reason: string; readonly message: string; readonly events: KubeletEvent[] }
  | { readonly kind: 'pulling'; readonly pull: PullInProgress; readonly events: KubeletEvent[] };

export interface PullInProgress {
  readonly podUID: string;
  /** The image as written in the container spec. */
  readonly image: string;
  readonly ref: ImageReference;
  readonly requestedAtMs: number;
  readonly startedAtMs: number;
  readonly doneAtMs: number;
  readonly resolution: { ok: true; image: ResolvedImage } | { ok: false; message: string };
}

export type PullOutcome =
  | { readonly kind: 'pulled'; readonly image: StoredImage; readonly events: KubeletEvent[] }
  | { readonly kind: 'error'; readonly reason: string; readonly message: string; readonly events: KubeletEvent[] };

export interface ImageManagerOptions {
  catalog: ImageCatalog;
  store: NodeImageStore;
  /** The node's platform (with `osVersion` = full Windows version on Windows). */
  host: Platform;
  /** Simulated registry bandwidth of this node, bytes/s (default 200 MB/s). */
  bandwidthBytesPerSecond?: number;
  /** Per-pull latency, ms (default 300). */
  pullLatencyMs?: number;
  /** Back-off of failed pulls (default 10 s doubling to 300 s, the kubelet's). */
  backoff?: Backoff;
}

export class ImageManager {
  readonly backoff: Backoff;
  private readonly bandwidth: number;
  private readonly latencyMs: number;
  /** Serialized pulls: when the puller is free again. */
  private pullerFreeAtMs = 0;
  /**
   * Image ids whose content a successful pull already brings (finished or queued). Pulls are serialized, so a
   * later pull of the same content starts after it is in the content store: containerd then fetches only the
   * manifest and finds every blob present, and the pull takes just the registry round trip.
   */
  private readonly contentPulled = new Set<string>();

  constructor(private readonly opts: ImageManagerOptions) {
    this.backoff = opts.backoff ?? new Backoff(10_000, 300_000);
    this.bandwidth = opts.bandwidthBytesPerSecond ?? 200_000_000;
    this.latencyMs = opts.pullLatencyMs ?? 300;
  }

  /** `EnsureImageExists`: decides from presence, policy and back-off; starts a pull when one is needed. */
  ensureImageExists(podUID: string, image: string, pullPolicy: PullPolicy | undefined, nowMs: number): EnsureResult {
    let ref: ImageReference;
    try {
      ref = parseImageReference(image);
    } catch (e) {
      const detail = e instanceof InvalidImageReferenceError ? e.message : String(e);
      const message = `Failed to apply default image tag "${image}": ${detail}`;
      return { kind: 'error', reason: imageErrorReasons.ErrInvalidImageName, message, events: [{ type: 'Warning', reason: imageEventReasons.FailedToInspectImage, message }] };
    }
    const policy = pullPolicy ?? defaultPullPolicy(image);
    const present = this.opts.store.get(ref.normalized);
    const shouldPull = policy === 'Always' || (policy === 'IfNotPresent' && present === undefined);
    if (!shouldPull) {
      if (present !== undefined) {
        return { kind: 'present', image: present, events: [{ type: 'Normal', reason: imageEventReasons.PulledImage, message: `Container image "${image}" already present on machine` }] };
      }
      const message = `Container image "${image}" is not present with pull policy of Never`;
      return { kind: 'error', reason: imageErrorReasons.ErrImageNeverPull, message, events: [{ type: 'Warning', reason: imageEventReasons.ErrImageNeverPullPolicy, message }] };
    }
    const key = backoffKey(podUID, image);
    if (this.backoff.isInBackOffSinceUpdate(key, nowMs)) {
      const message = `Back-off pulling image "${image}"`;
      return { kind: 'error', reason: imageErrorReasons.ErrImagePullBackOff, message, events: [{ type: 'Normal', reason: imageEventReasons.BackOffPullImage, message }] };
    }
    const resolution = resolvePull(this.opts.catalog, ref, this.opts.host);
    const startedAtMs = Math.max(nowMs, this.pullerFreeAtMs);
    let duration = this.latencyMs;
    if (resolution.ok && !this.contentPulled.has(resolution.image.imageId)) {
      duration = pullDurationMs(resolution.image.sizeBytes, this.bandwidth, this.latencyMs);
      this.contentPulled.add(resolution.image.imageId);
    }
    const doneAtMs = startedAtMs + duration;
    this.pullerFreeAtMs = doneAtMs;
    return {
      kind: 'pulling',
      pull: { podUID, image, ref, requestedAtMs: nowMs, startedAtMs, doneAtMs, resolution },
      events: [{ type: 'Normal', reason: imageEventReasons.PullingImage, message: `Pulling image "${image}"` }],
    };
  }

  /** Finishes a pull at its `doneAtMs`: stores the image, or records the failure and backs off. */
  completePull(pull: PullInProgress): PullOutcome {
    if (!pull.resolution.ok) {
      this.backoff.next(backoffKey(pull.podUID, pull.image), pull.doneAtMs);
      return {
        kind: 'error',
        reason: imageErrorReasons.ErrImagePull,
        message: pull.resolution.message,
        events: [{ type: 'Warning', reason: imageEventReasons.FailedToPullImage, message: `Failed to pull image "${pull.image}": ${pull.resolution.message}` }],
      };
    }
    const stored = this.opts.store.add(pull.resolution.image);
    const pullMs = pull.doneAtMs - pull.startedAtMs;
    const totalMs = pull.doneAtMs - pull.requestedAtMs;
    this.backoff.gc(pull.doneAtMs);
    return {
      kind: 'pulled',
      image: stored,
      events: [
        {
          type: 'Normal',
          reason: imageEventReasons.PulledImage,
          message: `Successfully pulled image "${pull.image}" in ${formatGoDuration(pullMs)} (${formatGoDuration(totalMs)} including waiting). Image size: ${stored.sizeBytes} bytes.`,
        },
      ],
    };
  }

  /** When a pull of `image` for `podUID` may be tried again, or undefined when not backing off. */
  retryAtMs(podUID: string, image: string): number | undefined {
    return this.backoff.retryAtMs(backoffKey(podUID, image));
  }
}

function backoffKey(podUID: string, image: string): string {
  return `${podUID}_${image}`;
}
