/**
 * OCI platforms and containerd's platform matching (github.com/containerd/platforms): normalization, the
 * host's ordered list of acceptable platforms (`Only`), and the Windows host/container build compatibility
 * rule (`checkWindowsHostAndContainerCompat`) that decides which manifest of an index a Windows node pulls.
 */
import { Memo } from '../../util/memo.js';

export interface Platform {
  readonly os: string;
  readonly architecture: string;
  readonly variant?: string;
  /** Windows only: `10.0.17763.6532`. Empty on HostProcess images, which run on every build. */
  readonly osVersion?: string;
}

/** Windows Server builds (hcsshim `osversion`). */
export const windowsBuilds = {
  RS1: 14393,
  RS5: 17763,
  V19H1: 18362,
  V19H2: 18363,
  V20H1: 19041,
  V20H2: 19042,
  V21H1: 19043,
  LTSC2022: 20348,
  V21H2Win11: 22000,
  V22H2Win11: 22621,
  V23H2: 25398,
  LTSC2025: 26100,
} as const;

/** Lowercases the OS and maps architecture aliases as containerd's `Normalize` does. */
export function normalizePlatform(p: Platform): Platform {
  const os = p.os.toLowerCase() === 'macos' ? 'darwin' : p.os.toLowerCase();
  let architecture = p.architecture.toLowerCase();
  let variant = p.variant?.toLowerCase();
  switch (architecture) {
    case 'i386':
      architecture = '386';
      variant = undefined;
      break;
    case 'x86_64':
    case 'x86-64':
    case 'amd64':
      architecture = 'amd64';
      if (variant === 'v1') variant = undefined;
      break;
    case 'aarch64':
    case 'arm64':
      architecture = 'arm64';
      if (variant === '8' || variant === 'v8' || variant === '') variant = undefined;
      break;
    case 'armhf':
      architecture = 'arm';
      variant = 'v7';
      break;
    case 'armel':
      architecture = 'arm';
      variant = 'v6';
      break;
    case 'arm':
      if (variant === undefined || variant === '' || variant === '7') variant = 'v7';
      else if (variant === '5' || variant === '6' || variant === '8') variant = `v${variant}`;
      break;
    default:
      break;
  }
  return {
    os,
    architecture,
    ...(variant !== undefined && variant !== '' ? { variant } : {}),
    ...(p.osVersion !== undefined && p.osVersion !== '' ? { osVersion: p.osVersion } : {}),
  };
}

/** `os/arch[/variant]`, as containerd and `docker manifest inspect` print it. */
export function formatPlatform(p: Platform): string {
  return [p.os, p.architecture, ...(p.variant !== undefined ? [p.variant] : [])].join('/');
}

/** Parses `linux/arm64/v8` or `windows/amd64`. */
export function parsePlatform(s: string): Platform {
  const [os, architecture, variant] = s.split('/');
  if (os === undefined || os === '' || architecture === undefined || architecture === '') {
    throw new Error(`invalid platform "${s}": expected os/arch[/variant]`);
  }
  return normalizePlatform({ os, architecture, ...(variant !== undefined ? { variant } : {}) });
}

interface WindowsVersion {
  major: number;
  minor: number;
  build: number;
}

function parseWindowsVersion(v: string): WindowsVersion {
  const [major, minor, build] = v.split('.').map((x) => Number.parseInt(x, 10));
  return { major: major ?? 0, minor: minor ?? 0, build: build ?? 0 };
}

/** Stable-ABI LTSC releases, ascending (containerd/platforms `compatLTSCReleases`). */
const compatLTSCReleases = [windowsBuilds.LTSC2022, windowsBuilds.LTSC2025] as const;

/**
 * containerd/platforms `checkWindowsHostAndContainerCompat` (HEAD): major and minor must be equal; a host
 * before Server 2022 (20348) runs only its own build; a newer host runs container builds from the LTSC before
 * the latest LTSC at or below the host (20348 for 2022 itself) up to the host build. So 2022 accepts 20348,
 * 2025 (26100) accepts 20348..26100, and no host accepts a container newer than itself.
 */
export function windowsHostAndContainerCompatible(hostVersion: string, containerVersion: string): boolean {
  const host = parseWindowsVersion(hostVersion);
  const ctr = parseWindowsVersion(containerVersion);
  if (host.major !== ctr.major || host.minor !== ctr.minor) return false;
  if (host.build < windowsBuilds.LTSC2022) return host.build === ctr.build;
  let idx = 0;
  for (let i = compatLTSCReleases.length - 1; i >= 0; i--) {
    if (host.build >= compatLTSCReleases[i]!) {
      idx = i;
      break;
    }
  }
  const floor = compatLTSCReleases[idx > 0 ? idx - 1 : 0]!;
  return ctr.build >= floor && ctr.build <= host.build;
}

/**
 * `hostPlatformVector` by host platform: a node checks its platform against every manifest of every pull.
 * A cluster has a handful of host platforms; the memo is cleared past 64.
 */
const vectors = new Memo<readonly Platform[]>(64);

/** The platforms a host accepts, best first (containerd `platformVector`). */
export function hostPlatformVector(host: Platform): readonly Platform[] {
  const p = normalizePlatform(host);
  return vectors.get(`${p.os}/${p.architecture}/${p.variant ?? ''}/${p.osVersion ?? ''}`, () => Object.freeze(platformVector(p)));
}

function platformVector(p: Platform): Platform[] {
  const vector: Platform[] = [p];
  const base = { os: p.os, ...(p.osVersion !== undefined ? { osVersion: p.osVersion } : {}) };
  switch (p.architecture) {
    case 'amd64': {
      const level = p.variant !== undefined ? Number.parseInt(p.variant.slice(1), 10) : 1;
      for (let v = level - 1; v >= 1; v--) vector.push({ ...base, architecture: 'amd64', ...(v > 1 ? { variant: `v${v}` } : {}) });
      vector.push({ ...base, architecture: '386' });
      break;
    }
    case 'arm64':
      vector.push({ ...base, architecture: 'arm', variant: 'v8' });
      for (const v of ['v7', 'v6', 'v5']) vector.push({ ...base, architecture: 'arm', variant: v });
      break;
    case 'arm': {
      const level = p.variant !== undefined ? Number.parseInt(p.variant.slice(1), 10) : 7;
      for (let v = level - 1; v >= 5; v--) vector.push({ ...base, architecture: 'arm', variant: `v${v}` });
      break;
    }
    default:
      break;
  }
  return vector;
}

function samePlatformIgnoringVersion(a: Platform, b: Platform): boolean {
  return a.os === b.os && a.architecture === b.architecture && (a.variant ?? '') === (b.variant ?? '');
}

/**
 * containerd's default matcher for a host: OS, architecture and variant from the host's vector; on a Windows
 * host additionally the build rule (an image platform without `os.version`, as HostProcess images have,
 * matches every build).
 */
export function platformMatches(host: Platform, image: Platform): boolean {
  const img = normalizePlatform(image);
  const h = normalizePlatform(host);
  if (!hostPlatformVector(h).some((candidate) => samePlatformIgnoringVersion(candidate, img))) return false;
  if (h.os === 'windows') {
    if (img.osVersion === undefined) return true;
    return windowsHostAndContainerCompatible(h.osVersion ?? '10.0.0', img.osVersion);
  }
  return true;
}

/**
 * Picks the manifest of an index a host pulls: among matching platforms, the earliest in the host vector;
 * on Windows, a build equal to the host's first, then the newest compatible build (containerd `Less`).
 * Returns the index into `candidates`, or -1 for no match.
 */
export function selectPlatform(host: Platform, candidates: readonly Platform[]): number {
  const h = normalizePlatform(host);
  const vector = hostPlatformVector(h);
  const hostBuild = h.osVersion !== undefined ? parseWindowsVersion(h.osVersion).build : undefined;
  let best = -1;
  let bestRank: [number, number, number] = [Infinity, Infinity, Infinity];
  candidates.forEach((raw, i) => {
    const c = normalizePlatform(raw);
    if (!platformMatches(h, c)) return;
    const archRank = vector.findIndex((v) => samePlatformIgnoringVersion(v, c));
    const build = c.osVersion !== undefined ? parseWindowsVersion(c.osVersion).build : 0;
    const exact = hostBuild !== undefined && build === hostBuild ? 0 : 1;
    const rank: [number, number, number] = [archRank, exact, -build];
    if (rank[0] < bestRank[0] || (rank[0] === bestRank[0] && (rank[1] < bestRank[1] || (rank[1] === bestRank[1] && rank[2] < bestRank[2])))) {
      best = i;
      bestRank = rank;
    }
  });
  return best;
}
