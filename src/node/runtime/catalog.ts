/**
 * The simulated registry: which platforms each image offers, whether it is an index (manifest list) or a
 * single manifest, and its size. Built-in entries (`builtin-images.ts`) cover the images the guides and the
 * chapter use; a user catalog file adds or overrides entries; anything else follows `defaultImagePlatforms`.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { parseImageReference, type ImageReference } from './image-ref.js';
import { normalizePlatform, parsePlatform, type Platform } from './platform.js';

export interface ImagePlatformEntry {
  readonly platform: Platform;
  /** Bytes the runtime reports after the pull (kubelet's `Image size: N bytes.`, `status.images[].sizeBytes`). */
  readonly sizeBytes: number;
}

/** What a registry serves for one tag. */
export interface ImageManifest {
  /** `index`: an OCI index / Docker manifest list; `manifest`: a single image manifest. */
  readonly mediaType: 'index' | 'manifest';
  readonly platforms: readonly ImagePlatformEntry[];
}

/** One repository of the catalog. */
export interface CatalogRepository {
  /** Normalized repository: `docker.io/library/nginx`, `mcr.microsoft.com/windows/servercore`. */
  readonly repository: string;
  /** Tags the registry knows, each with its manifest. */
  readonly tags?: Readonly<Record<string, ImageManifest>>;
  /**
   * Tags not listed in `tags`: a function of the tag, or undefined for "not found" (the registry has no
   * such tag: containerd fails with `failed to resolve reference`).
   */
  readonly otherTags?: (tag: string) => ImageManifest | undefined;
}

export type ImageLookup =
  | { readonly found: true; readonly manifest: ImageManifest; readonly digest: string; readonly source: 'catalog' | 'default' }
  | { readonly found: false };

/** Deterministic `sha256:` digest for a simulated manifest. */
export function simulatedDigest(...parts: string[]): string {
  return `sha256:${createHash('sha256').update(parts.join('\u0000')).digest('hex')}`;
}

const ltscBuilds: ReadonlyArray<[RegExp, string]> = [
  [/ltsc2025/, '10.0.26100.2314'],
  [/ltsc2022/, '10.0.20348.2849'],
  [/ltsc2019|1809/, '10.0.17763.6532'],
  [/20h2/, '10.0.19042.1889'],
  [/2004/, '10.0.19041.1415'],
];

/** The Windows build a tag or name pins (`ltsc2019` and `1809` -> 10.0.17763, ...), or undefined. */
export function windowsBuildFromName(nameAndTag: string): string | undefined {
  const s = nameAndTag.toLowerCase();
  for (const [re, version] of ltscBuilds) if (re.test(s)) return version;
  return undefined;
}

function looksWindows(repository: string, tag: string): boolean {
  const s = `${repository}:${tag}`.toLowerCase();
  return /windowsservercore|nanoserver|servercore|(^|[^a-z])windows([^a-z]|$)|hostprocess/.test(s) || windowsBuildFromName(s) !== undefined;
}

/** Default size of an unknown image, per platform. */
export const defaultImageSizeBytes = 52_428_800;

/**
 * Images the catalog does not know. Documented rule:
 * - a tag or name with `ltsc2019`/`1809`, `ltsc2022`, `ltsc2025`, `20H2`, `2004`: an index with one entry,
 *   windows/amd64 at that build (10.0.17763, 10.0.20348, 10.0.26100, 10.0.19042, 10.0.19041);
 * - otherwise a name or tag with `windows`, `servercore`, `windowsservercore`, `nanoserver`: an index with
 *   windows/amd64 for 10.0.17763 and 10.0.20348 (the two Windows Server LTSC builds most images ship);
 * - with `hostprocess`: windows/amd64 without `os.version` (HostProcess images run on every build);
 * - everything else: an index with linux/amd64 and linux/arm64.
 */
export function defaultImagePlatforms(repository: string, tag: string): ImageManifest {
  const nameAndTag = `${repository}:${tag}`;
  const build = windowsBuildFromName(nameAndTag);
  const size = defaultImageSizeBytes;
  if (/hostprocess/i.test(nameAndTag)) {
    return { mediaType: 'index', platforms: [{ platform: { os: 'windows', architecture: 'amd64' }, sizeBytes: size }] };
  }
  if (build !== undefined) {
    return { mediaType: 'index', platforms: [{ platform: { os: 'windows', architecture: 'amd64', osVersion: build }, sizeBytes: size }] };
  }
  if (looksWindows(repository, tag)) {
    return {
      mediaType: 'index',
      platforms: [
        { platform: { os: 'windows', architecture: 'amd64', osVersion: '10.0.17763.6532' }, sizeBytes: size },
        { platform: { os: 'windows', architecture: 'amd64', osVersion: '10.0.20348.2849' }, sizeBytes: size },
      ],
    };
  }
  return {
    mediaType: 'index',
    platforms: [
      { platform: { os: 'linux', architecture: 'amd64' }, sizeBytes: size },
      { platform: { os: 'linux', architecture: 'arm64' }, sizeBytes: size },
    ],
  };
}

/** Repositories by name; later registrations override earlier ones (user files override built-ins). */
export class ImageCatalog {
  private readonly repos = new Map<string, CatalogRepository>();

  constructor(repositories: Iterable<CatalogRepository> = []) {
    for (const r of repositories) this.add(r);
  }

  /** Adds a repository; an entry without `tags` replaces an existing one, one with `tags` adds those tags. */
  add(repo: CatalogRepository): void {
    const existing = this.repos.get(repo.repository);
    if (existing === undefined || repo.tags === undefined) {
      this.repos.set(repo.repository, repo);
      return;
    }
    const otherTags = repo.otherTags ?? existing.otherTags;
    this.repos.set(repo.repository, {
      repository: repo.repository,
      tags: { ...existing.tags, ...repo.tags },
      ...(otherTags !== undefined ? { otherTags } : {}),
    });
  }

  has(repository: string): boolean {
    return this.repos.has(repository);
  }

  /** What the registry serves for `ref`. Digest references resolve to the tagless manifest of the repository. */
  lookup(ref: ImageReference): ImageLookup {
    const repo = this.repos.get(ref.repository);
    const tag = ref.tag ?? 'latest';
    if (repo === undefined) {
      return { found: true, manifest: defaultImagePlatforms(ref.repository, tag), digest: ref.digest ?? simulatedDigest(ref.repository, tag), source: 'default' };
    }
    const manifest = repo.tags?.[tag] ?? (ref.digest !== undefined && ref.tag === undefined ? repo.tags?.['latest'] : undefined) ?? repo.otherTags?.(tag);
    if (manifest === undefined) return { found: false };
    return { found: true, manifest, digest: ref.digest ?? simulatedDigest(ref.repository, tag), source: 'catalog' };
  }
}

/**
 * A user catalog file (JSON or YAML):
 * ```yaml
 * images:
 *   - name: registry.example.com/team/app   # any reference form; normalized like containerd does
 *     tags: ["1.0", "latest"]                # optional: without it every tag resolves to this entry
 *     mediaType: index                       # index (default) or manifest
 *     sizeBytes: 104857600                   # default for platforms that give none
 *     platforms:
 *       - linux/amd64
 *       - { os: windows, architecture: amd64, osVersion: 10.0.17763.6532, sizeBytes: 2000000000 }
 * ```
 */
export interface CatalogFile {
  images: CatalogFileImage[];
}

export interface CatalogFileImage {
  name: string;
  tags?: string[];
  mediaType?: 'index' | 'manifest';
  sizeBytes?: number;
  platforms: Array<string | { os: string; architecture: string; variant?: string; osVersion?: string; sizeBytes?: number }>;
}

export class CatalogFileError extends Error {}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Validates parsed catalog data and turns it into repositories. `where` names the file in errors. */
export function catalogFromData(data: unknown, where = 'catalog'): CatalogRepository[] {
  if (!isRecord(data) || !Array.isArray(data['images'])) throw new CatalogFileError(`${where}: expected a top-level "images" list`);
  const out: CatalogRepository[] = [];
  data['images'].forEach((raw: unknown, i: number) => {
    const at = `${where}: images[${i}]`;
    if (!isRecord(raw) || typeof raw['name'] !== 'string') throw new CatalogFileError(`${at}.name: required string`);
    const ref = parseImageReference(raw['name']);
    const mediaType = raw['mediaType'] ?? 'index';
    if (mediaType !== 'index' && mediaType !== 'manifest') throw new CatalogFileError(`${at}.mediaType: must be "index" or "manifest"`);
    const defaultSize = raw['sizeBytes'] ?? defaultImageSizeBytes;
    if (typeof defaultSize !== 'number' || defaultSize < 0) throw new CatalogFileError(`${at}.sizeBytes: must be a non-negative number`);
    if (!Array.isArray(raw['platforms']) || raw['platforms'].length === 0) throw new CatalogFileError(`${at}.platforms: required non-empty list`);
    const platforms: ImagePlatformEntry[] = raw['platforms'].map((p: unknown, j: number) => {
      if (typeof p === 'string') return { platform: parsePlatform(p), sizeBytes: defaultSize };
      if (!isRecord(p) || typeof p['os'] !== 'string' || typeof p['architecture'] !== 'string') {
        throw new CatalogFileError(`${at}.platforms[${j}]: expected "os/arch[/variant]" or {os, architecture, variant?, osVersion?, sizeBytes?}`);
      }
      const size = p['sizeBytes'] ?? defaultSize;
      if (typeof size !== 'number') throw new CatalogFileError(`${at}.platforms[${j}].sizeBytes: must be a number`);
      const platform = normalizePlatform({
        os: p['os'],
        architecture: p['architecture'],
        ...(typeof p['variant'] === 'string' ? { variant: p['variant'] } : {}),
        ...(typeof p['osVersion'] === 'string' ? { osVersion: p['osVersion'] } : {}),
      });
      return { platform, sizeBytes: size };
    });
    if (mediaType === 'manifest' && platforms.length !== 1) throw new CatalogFileError(`${at}.platforms: a single manifest has exactly one platform`);
    const manifest: ImageManifest = { mediaType, platforms };
    const tags = raw['tags'];
    if (tags === undefined) {
      out.push({ repository: ref.repository, otherTags: () => manifest });
    } else {
      if (!Array.isArray(tags) || !tags.every((t): t is string => typeof t === 'string')) throw new CatalogFileError(`${at}.tags: expected a list of strings`);
      out.push({ repository: ref.repository, tags: Object.fromEntries(tags.map((t) => [t, manifest])) });
    }
  });
  return out;
}

/** Reads a catalog file (`.json`, `.yaml`, `.yml`). */
export function loadCatalogFile(path: string): CatalogRepository[] {
  const text = readFileSync(path, 'utf8');
  const data: unknown = path.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  return catalogFromData(data, path);
}
