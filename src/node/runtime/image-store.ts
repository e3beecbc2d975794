/**
 * One node's image store (containerd's content of that host): what has been pulled, under which names,
 * and the `status.images` list the kubelet reports (repo digests then repo tags, largest images first).
 */
import type { ContainerImage } from 'kubernetes-types/core/v1.js';
import type { ResolvedImage } from './pull.js';

export interface StoredImage {
  readonly imageId: string;
  readonly repoTags: Set<string>;
  readonly repoDigests: Set<string>;
  readonly sizeBytes: number;
  readonly image: ResolvedImage;
}

export class NodeImageStore {
  private readonly byId = new Map<string, StoredImage>();
  private readonly byName = new Map<string, StoredImage>();

  /** The stored image a reference names (normalized tag or digest reference), if present. */
  get(normalized: string): StoredImage | undefined {
    return this.byName.get(normalized);
  }

  has(normalized: string): boolean {
    return this.byName.has(normalized);
  }

  /** Adds a pulled image; a tag moves to the new image as in containerd. */
  add(image: ResolvedImage): StoredImage {
    let stored = this.byId.get(image.imageId);
    if (stored === undefined) {
      stored = { imageId: image.imageId, repoTags: new Set(), repoDigests: new Set(), sizeBytes: image.sizeBytes, image };
      this.byId.set(image.imageId, stored);
    }
    const tagName = image.ref.tag !== undefined ? `${image.ref.repository}:${image.ref.tag}` : undefined;
    if (tagName !== undefined) {
      const previous = this.byName.get(tagName);
      if (previous !== undefined && previous !== stored) previous.repoTags.delete(tagName);
      stored.repoTags.add(tagName);
      this.byName.set(tagName, stored);
    }
    stored.repoDigests.add(image.repoDigest);
    this.byName.set(image.repoDigest, stored);
    this.byName.set(image.ref.normalized, stored);
    return stored;
  }

  /** Number of distinct images. */
  get size(): number {
    return this.byId.size;
  }

  /** `status.images` as the kubelet builds it: names are repo digests then repo tags; largest first. */
  nodeStatusImages(maxImages = 50): ContainerImage[] {
    return [...this.byId.values()]
      .sort((a, b) => b.sizeBytes - a.sizeBytes)
      .slice(0, maxImages)
      .map((s) => ({ names: [...s.repoDigests, ...s.repoTags], sizeBytes: s.sizeBytes }));
  }
}
