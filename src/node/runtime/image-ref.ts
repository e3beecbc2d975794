/**
 * Image references as containerd and the kubelet read them (docker/distribution `reference`
 * `ParseNormalizedNamed`): a short name `nginx` means `docker.io/library/nginx`, a first path component
 * with a `.` or `:` (or `localhost`) names a registry, a missing tag and digest means `:latest`.
 */

export interface ImageReference {
  /** What the user wrote (`nginx`, `mcr.microsoft.com/windows/servercore:ltsc2019`). */
  readonly original: string;
  /** Registry host, `docker.io` for Docker Hub. */
  readonly domain: string;
  /** Path inside the registry: `library/nginx`, `windows/servercore`. */
  readonly path: string;
  /** `domain/path`: the repository name containerd uses (`docker.io/library/nginx`). */
  readonly repository: string;
  readonly tag: string | undefined;
  readonly digest: string | undefined;
  /**
   * The fully qualified reference containerd pulls and reports in errors and `status.images`:
   * `docker.io/library/nginx:latest`, `repo@sha256:...`, `repo:tag@sha256:...`.
   */
  readonly normalized: string;
}

export class InvalidImageReferenceError extends Error {
  constructor(readonly reference: string, readonly detail: string) {
    super(`couldn't parse image name "${reference}": ${detail}`);
    this.name = 'InvalidImageReferenceError';
  }
}

const defaultDomain = 'docker.io';
const legacyDefaultDomain = 'index.docker.io';
const officialRepoPrefix = 'library/';

const pathComponent = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const tagPattern = /^[\w][\w.-]{0,127}$/;
const digestPattern = /^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}$/;
const domainPattern = /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)(?:\.(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?))*(?::[0-9]+)?$/;

/** Parses and normalizes `ref`; throws `InvalidImageReferenceError` with distribution's wording. */
export function parseImageReference(ref: string): ImageReference {
  if (ref === '') throw new InvalidImageReferenceError(ref, 'invalid reference format');
  let rest = ref;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!digestPattern.test(digest)) throw new InvalidImageReferenceError(ref, 'invalid reference format');
  }
  let tag: string | undefined;
  const lastSlash = rest.lastIndexOf('/');
  const colon = rest.indexOf(':', lastSlash + 1);
  if (colon >= 0) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!tagPattern.test(tag)) throw new InvalidImageReferenceError(ref, 'invalid reference format');
  }
  let domain = defaultDomain;
  let path = rest;
  const slash = rest.indexOf('/');
  if (slash >= 0) {
    const first = rest.slice(0, slash);
    if (first.includes('.') || first.includes(':') || first === 'localhost' || first !== first.toLowerCase()) {
      domain = first;
      path = rest.slice(slash + 1);
    }
  }
  if (!domainPattern.test(domain)) throw new InvalidImageReferenceError(ref, 'invalid reference format');
  if (path !== path.toLowerCase()) {
    throw new InvalidImageReferenceError(ref, 'invalid reference format: repository name must be lowercase');
  }
  if (path === '' || !path.split('/').every((c) => pathComponent.test(c))) {
    throw new InvalidImageReferenceError(ref, 'invalid reference format');
  }
  if (domain === legacyDefaultDomain) domain = defaultDomain;
  if (domain === defaultDomain && !path.includes('/')) path = officialRepoPrefix + path;
  const repository = `${domain}/${path}`;
  if (tag === undefined && digest === undefined) tag = 'latest';
  const normalized = repository + (tag !== undefined ? `:${tag}` : '') + (digest !== undefined ? `@${digest}` : '');
  return { original: ref, domain, path, repository, tag, digest, normalized };
}

/** The name users see for a Docker Hub repository: `nginx`, `kiamol/ch03-numbers-web`. */
export function familiarName(ref: ImageReference): string {
  if (ref.domain !== defaultDomain) return ref.repository;
  return ref.path.startsWith(officialRepoPrefix) ? ref.path.slice(officialRepoPrefix.length) : ref.path;
}
