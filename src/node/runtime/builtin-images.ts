/**
 * Built-in catalog: the images the guides, the chapter and kubeadm clusters use, with the platforms their
 * registries publish and approximate sizes (bytes as containerd reports them for the amd64 image).
 */
import { ImageCatalog, windowsBuildFromName, type CatalogRepository, type ImageManifest, type ImagePlatformEntry } from './catalog.js';
import { parsePlatform, type Platform } from './platform.js';

const ws2019 = '10.0.17763.6532';
const ws2022 = '10.0.20348.2849';
const ws2025 = '10.0.26100.2314';

function linuxIndex(sizeBytes: number, archs: string[]): ImageManifest {
  return { mediaType: 'index', platforms: archs.map((a) => ({ platform: parsePlatform(`linux/${a}`), sizeBytes: scaled(sizeBytes, a) })) };
}

/** Other architectures' images differ a little in size; keep amd64 exact and vary the rest deterministically. */
function scaled(size: number, arch: string): number {
  if (arch === 'amd64') return size;
  let h = 0;
  for (const c of arch) h = (h * 31 + c.charCodeAt(0)) % 97;
  return Math.round(size * (0.9 + h / 970));
}

function windowsIndex(entries: Array<[string, number]>): ImageManifest {
  return {
    mediaType: 'index',
    platforms: entries.map(([osVersion, sizeBytes]): ImagePlatformEntry => ({ platform: { os: 'windows', architecture: 'amd64', osVersion }, sizeBytes })),
  };
}

function single(platform: Platform, sizeBytes: number): ImageManifest {
  return { mediaType: 'manifest', platforms: [{ platform, sizeBytes }] };
}

const everyTag = (m: ImageManifest) => (): ImageManifest => m;

const officialMulti = ['amd64', 'arm/v5', 'arm/v7', 'arm64/v8', '386', 'mips64le', 'ppc64le', 's390x'];
const k8sArchs = ['amd64', 'arm', 'arm64', 'ppc64le', 's390x'];

/** Windows images whose tag names their build (`ltsc2019`, `1809`, ...); `multi` lists builds of tags that name none. */
function windowsByTag(sizes: { 17763: number; 20348: number; 26100?: number }, multi: string[]): (tag: string) => ImageManifest | undefined {
  return (tag) => {
    const build = windowsBuildFromName(tag);
    if (build === undefined) return windowsIndex(multi.map((b) => [b, sizeFor(sizes, b)]));
    if (build.startsWith('10.0.26100') && sizes[26100] === undefined) return undefined;
    if (!build.startsWith('10.0.17763') && !build.startsWith('10.0.20348') && !build.startsWith('10.0.26100')) return undefined;
    return windowsIndex([[build, sizeFor(sizes, build)]]);
  };
}

function sizeFor(sizes: { 17763: number; 20348: number; 26100?: number }, build: string): number {
  if (build.startsWith('10.0.17763')) return sizes[17763];
  if (build.startsWith('10.0.20348')) return sizes[20348];
  return sizes[26100] ?? sizes[20348];
}

export const builtinRepositories: readonly CatalogRepository[] = [
  { repository: 'docker.io/library/nginx', otherTags: everyTag(linuxIndex(72_099_410, officialMulti)) },
  { repository: 'docker.io/library/busybox', otherTags: everyTag(linuxIndex(2_166_802, [...officialMulti, 'arm/v6', 'riscv64'])) },
  { repository: 'docker.io/library/alpine', otherTags: everyTag(linuxIndex(3_653_068, ['amd64', 'arm/v6', 'arm/v7', 'arm64/v8', '386', 'ppc64le', 'riscv64', 's390x'])) },
  { repository: 'docker.io/library/ubuntu', otherTags: everyTag(linuxIndex(29_754_422, ['amd64', 'arm/v7', 'arm64/v8', 'ppc64le', 'riscv64', 's390x'])) },
  { repository: 'docker.io/library/debian', otherTags: everyTag(linuxIndex(48_491_726, officialMulti)) },
  { repository: 'docker.io/library/redis', otherTags: everyTag(linuxIndex(45_080_384, [...officialMulti, 'arm/v6'])) },
  { repository: 'docker.io/library/postgres', otherTags: everyTag(linuxIndex(158_420_118, [...officialMulti, 'arm/v6'])) },
  {
    // Oracle's mysql 8+ images are amd64 and arm64; 5.7 was amd64 only.
    repository: 'docker.io/library/mysql',
    otherTags: (tag) => (tag.startsWith('5.') ? linuxIndex(163_452_312, ['amd64']) : linuxIndex(172_984_221, ['amd64', 'arm64/v8'])),
  },
  {
    repository: 'registry.k8s.io/pause',
    otherTags: everyTag({
      mediaType: 'index',
      platforms: [
        ...linuxIndex(320_368, k8sArchs).platforms,
        { platform: { os: 'windows', architecture: 'amd64', osVersion: ws2019 }, sizeBytes: 112_590_208 },
        { platform: { os: 'windows', architecture: 'amd64', osVersion: ws2022 }, sizeBytes: 122_116_534 },
      ],
    }),
  },
  { repository: 'registry.k8s.io/kube-proxy', otherTags: everyTag(linuxIndex(30_230_147, k8sArchs)) },
  { repository: 'registry.k8s.io/coredns/coredns', otherTags: everyTag(linuxIndex(18_562_039, ['amd64', 'arm', 'arm64', 'mips64le', 'ppc64le', 's390x'])) },
  { repository: 'docker.io/flannel/flannel', otherTags: everyTag(linuxIndex(32_263_116, ['amd64', 'arm', 'arm64', 'ppc64le', 's390x', 'riscv64'])) },
  { repository: 'docker.io/flannel/flannel-cni-plugin', otherTags: everyTag(linuxIndex(4_856_838, ['amd64', 'arm', 'arm64', 'ppc64le', 's390x', 'riscv64'])) },
  {
    // sig-windows-tools: HostProcess images (no os.version: every build) and older per-build images.
    repository: 'docker.io/sigwindowstools/flannel',
    otherTags: (tag) =>
      windowsBuildFromName(tag) !== undefined
        ? windowsIndex([[windowsBuildFromName(tag)!, 98_102_445]])
        : { mediaType: 'index', platforms: [{ platform: { os: 'windows', architecture: 'amd64' }, sizeBytes: 61_034_901 }] },
  },
  {
    repository: 'docker.io/sigwindowstools/kube-proxy',
    otherTags: (tag) =>
      windowsBuildFromName(tag) !== undefined
        ? windowsIndex([[windowsBuildFromName(tag)!, 131_890_112]])
        : { mediaType: 'index', platforms: [{ platform: { os: 'windows', architecture: 'amd64' }, sizeBytes: 42_877_020 }] },
  },
  {
    repository: 'mcr.microsoft.com/windows/servercore',
    otherTags: windowsByTag({ 17763: 2_581_466_624, 20348: 2_293_114_752, 26100: 2_705_823_744 }, [ws2019, ws2022, ws2025]),
  },
  {
    // nanoserver has no `ltsc2019` tag: its Server 2019 tag is `1809`.
    repository: 'mcr.microsoft.com/windows/nanoserver',
    tags: {
      '1809': windowsIndex([[ws2019, 108_562_361]]),
      ltsc2022: windowsIndex([[ws2022, 121_094_552]]),
      ltsc2025: windowsIndex([[ws2025, 126_911_409]]),
    },
  },
  {
    repository: 'mcr.microsoft.com/windows/servercore/iis',
    otherTags: windowsByTag({ 17763: 2_709_651_036, 20348: 2_417_780_381, 26100: 2_822_094_515 }, [ws2019, ws2022, ws2025]),
  },
  {
    // 4.8 images exist for 2019 and 2022; 4.8.1 adds 2025.
    repository: 'mcr.microsoft.com/dotnet/framework/aspnet',
    otherTags: (tag) => {
      const build = windowsBuildFromName(tag);
      const has2025 = tag.startsWith('4.8.1');
      if (build?.startsWith('10.0.26100') === true && !has2025) return undefined;
      if (build !== undefined) return windowsIndex([[build, build.startsWith('10.0.17763') ? 3_401_233_201 : 3_079_551_220]]);
      return windowsIndex([[ws2019, 3_401_233_201], [ws2022, 3_079_551_220], ...(has2025 ? [[ws2025, 3_511_908_760] as [string, number]] : [])]);
    },
  },
  { repository: 'mcr.microsoft.com/mssql/server', otherTags: everyTag(single({ os: 'linux', architecture: 'amd64' }, 588_093_344)) },
  {
    // The chapter's API: `:windows` is a Windows Server 2019 image; other tags are Linux.
    repository: 'docker.io/kiamol/ch03-numbers-api',
    tags: { windows: windowsIndex([[ws2019, 148_902_113]]) },
    otherTags: everyTag(linuxIndex(47_318_230, ['amd64', 'arm64', 'arm/v7'])),
  },
  { repository: 'docker.io/kiamol/ch03-numbers-web', otherTags: everyTag(linuxIndex(49_107_563, ['amd64', 'arm64', 'arm/v7'])) },
];

/** A catalog with the built-in images, plus `extra` repositories (user files) that override them. */
export function createDefaultCatalog(extra: Iterable<CatalogRepository> = []): ImageCatalog {
  const catalog = new ImageCatalog(builtinRepositories);
  for (const r of extra) catalog.add(r);
  return catalog;
}
