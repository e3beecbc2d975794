import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDefaultCatalog } from './builtin-images.js';
import { catalogFromData, ImageCatalog } from './catalog.js';
import { parseImageReference } from './image-ref.js';
import { resolvePull } from './pull.js';
import type { Platform } from './platform.js';

const catalog = createDefaultCatalog();
const hosts: Record<string, Platform> = {
  ws2019: { os: 'windows', architecture: 'amd64', osVersion: '10.0.17763.6532' },
  ws2022: { os: 'windows', architecture: 'amd64', osVersion: '10.0.20348.2849' },
  ws2025: { os: 'windows', architecture: 'amd64', osVersion: '10.0.26100.2314' },
  linuxAmd64: { os: 'linux', architecture: 'amd64' },
  linuxArm64: { os: 'linux', architecture: 'arm64' },
};

function outcome(image: string, host: Platform, cat: ImageCatalog = catalog): string {
  const r = resolvePull(cat, parseImageReference(image), host);
  if (!r.ok) return r.message.includes('no match for platform') ? 'no match' : r.message.includes('not found') ? 'not found' : r.message;
  return r.image.startFailure?.kind ?? `ok ${r.image.platform.osVersion ?? r.image.platform.architecture}`;
}

// Host build x image build x index/single manifest.
const single = (osVersion: string) =>
  new ImageCatalog(catalogFromData({ images: [{ name: 'example.com/win/app', mediaType: 'manifest', platforms: [{ os: 'windows', architecture: 'amd64', osVersion }] }] }));
const windowsTable: Array<{ name: string; host: keyof typeof hosts; image: string; cat?: ImageCatalog; want: string }> = [
  { name: 'servercore:ltsc2019 (index) on a 2019 host pulls', host: 'ws2019', image: 'mcr.microsoft.com/windows/servercore:ltsc2019', want: 'ok 10.0.17763.6532' },
  { name: 'servercore:ltsc2019 (index) on a 2022 host has no match', host: 'ws2022', image: 'mcr.microsoft.com/windows/servercore:ltsc2019', want: 'no match' },
  { name: 'servercore:ltsc2019 (index) on a 2025 host has no match', host: 'ws2025', image: 'mcr.microsoft.com/windows/servercore:ltsc2019', want: 'no match' },
  { name: 'servercore:ltsc2022 (index) on a 2019 host has no match', host: 'ws2019', image: 'mcr.microsoft.com/windows/servercore:ltsc2022', want: 'no match' },
  { name: 'servercore:ltsc2022 (index) on a 2022 host pulls', host: 'ws2022', image: 'mcr.microsoft.com/windows/servercore:ltsc2022', want: 'ok 10.0.20348.2849' },
  { name: 'servercore:ltsc2022 (index) on a 2025 host pulls', host: 'ws2025', image: 'mcr.microsoft.com/windows/servercore:ltsc2022', want: 'ok 10.0.20348.2849' },
  { name: 'servercore:ltsc2025 (index) on a 2022 host has no match', host: 'ws2022', image: 'mcr.microsoft.com/windows/servercore:ltsc2025', want: 'no match' },
  { name: 'iis:windowsservercore-ltsc2019 on a 2019 host pulls', host: 'ws2019', image: 'mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019', want: 'ok 10.0.17763.6532' },
  { name: 'iis:windowsservercore-ltsc2022 on a 2019 host has no match', host: 'ws2019', image: 'mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022', want: 'no match' },
  { name: 'multi-build aspnet:4.8 picks the host build on 2019', host: 'ws2019', image: 'mcr.microsoft.com/dotnet/framework/aspnet:4.8', want: 'ok 10.0.17763.6532' },
  { name: 'multi-build aspnet:4.8 picks the host build on 2022', host: 'ws2022', image: 'mcr.microsoft.com/dotnet/framework/aspnet:4.8', want: 'ok 10.0.20348.2849' },
  { name: 'single-manifest 17763 image on a 2019 host runs', host: 'ws2019', image: 'example.com/win/app:1', cat: single('10.0.17763.1'), want: 'ok 10.0.17763.1' },
  { name: 'single-manifest 17763 image on a 2022 host pulls but cannot start', host: 'ws2022', image: 'example.com/win/app:1', cat: single('10.0.17763.1'), want: 'osMismatch' },
  { name: 'single-manifest 20348 image on a 2025 host runs', host: 'ws2025', image: 'example.com/win/app:1', cat: single('10.0.20348.1'), want: 'ok 10.0.20348.1' },
  { name: 'single-manifest 26100 image on a 2022 host pulls but cannot start', host: 'ws2022', image: 'example.com/win/app:1', cat: single('10.0.26100.1'), want: 'osMismatch' },
  { name: 'HostProcess flannel runs on 2019', host: 'ws2019', image: 'sigwindowstools/flannel:v0.26.1-hostprocess', want: 'ok amd64' },
  { name: 'HostProcess kube-proxy runs on 2022', host: 'ws2022', image: 'sigwindowstools/kube-proxy:v1.32.0-flannel-hostprocess', want: 'ok amd64' },
  { name: 'a Linux image on a Windows node has no match', host: 'ws2022', image: 'nginx', want: 'no match' },
  { name: 'the chapter API :windows tag runs on 2019', host: 'ws2019', image: 'kiamol/ch03-numbers-api:windows', want: 'ok 10.0.17763.6532' },
  { name: 'nanoserver:ltsc2019 does not exist (its tag is 1809)', host: 'ws2019', image: 'mcr.microsoft.com/windows/nanoserver:ltsc2019', want: 'not found' },
  { name: 'nanoserver:1809 on 2019 pulls', host: 'ws2019', image: 'mcr.microsoft.com/windows/nanoserver:1809', want: 'ok 10.0.17763.6532' },
];
for (const tc of windowsTable) {
  void test(tc.name, () => assert.equal(outcome(tc.image, hosts[tc.host]!, tc.cat), tc.want));
}

const linuxTable: Array<{ name: string; host: keyof typeof hosts; image: string; want: string }> = [
  { name: 'multi-arch nginx on arm64 pulls the arm64 manifest', host: 'linuxArm64', image: 'nginx:1.27', want: 'ok arm64' },
  { name: 'the chapter web image runs on arm64', host: 'linuxArm64', image: 'kiamol/ch03-numbers-web', want: 'ok arm64' },
  { name: 'the chapter API default tag is Linux', host: 'linuxAmd64', image: 'kiamol/ch03-numbers-api', want: 'ok amd64' },
  { name: 'the chapter API :windows tag has no Linux manifest', host: 'linuxAmd64', image: 'kiamol/ch03-numbers-api:windows', want: 'no match' },
  { name: 'mssql (single manifest, amd64) on arm64 pulls then fails with exec format error', host: 'linuxArm64', image: 'mcr.microsoft.com/mssql/server:2022-latest', want: 'execFormat' },
  { name: 'mssql on amd64 runs', host: 'linuxAmd64', image: 'mcr.microsoft.com/mssql/server:2022-latest', want: 'ok amd64' },
  { name: 'mysql:5.7 (amd64-only index) on arm64 has no match', host: 'linuxArm64', image: 'mysql:5.7', want: 'no match' },
  { name: 'a Windows image on a Linux node has no match', host: 'linuxAmd64', image: 'mcr.microsoft.com/windows/servercore:ltsc2022', want: 'no match' },
  { name: 'an unknown image defaults to linux amd64+arm64', host: 'linuxArm64', image: 'example.com/team/app:1.0', want: 'ok arm64' },
  { name: 'an unknown ltsc2019-tagged image is Windows 17763', host: 'ws2019', image: 'example.com/team/app:1.0-ltsc2019', want: 'ok 10.0.17763.6532' },
  { name: 'an unknown ltsc2022-tagged image has no Linux manifest', host: 'linuxAmd64', image: 'example.com/team/app:1.0-ltsc2022', want: 'no match' },
  { name: 'an unknown windowsservercore image is Windows (2019 and 2022)', host: 'ws2022', image: 'example.com/team/windowsservercore-app:1', want: 'ok 10.0.20348.2849' },
];
for (const tc of linuxTable) {
  void test(tc.name, () => assert.equal(outcome(tc.image, hosts[tc.host]!), tc.want));
}

void test('the no-match error is containerd\'s text with the normalized reference', () => {
  const r = resolvePull(catalog, parseImageReference('mcr.microsoft.com/windows/servercore:ltsc2019'), hosts['ws2022']!);
  assert.equal(r.ok, false);
  assert.equal(
    !r.ok && r.message,
    'rpc error: code = NotFound desc = failed to pull and unpack image "mcr.microsoft.com/windows/servercore:ltsc2019": no match for platform in manifest: not found',
  );
  const n = resolvePull(catalog, parseImageReference('mysql:5.7'), hosts['linuxArm64']!);
  assert.equal(!n.ok && n.message, 'rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/mysql:5.7": no match for platform in manifest: not found');
});

void test('a user catalog entry overrides the built-in one and the defaults', () => {
  const cat = createDefaultCatalog(catalogFromData({ images: [{ name: 'nginx', platforms: ['linux/amd64'], sizeBytes: 1000 }, { name: 'example.com/x', tags: ['1'], platforms: ['linux/arm64'] }] }));
  assert.equal(outcome('nginx', hosts['linuxArm64']!, cat), 'no match');
  assert.equal(outcome('example.com/x:1', hosts['linuxArm64']!, cat), 'ok arm64');
  assert.equal(outcome('example.com/x:2', hosts['linuxArm64']!, cat), 'not found');
});

void test('catalog files are validated with the entry named', () => {
  assert.throws(() => catalogFromData({ images: [{ name: 'x' }] }, 'c.yaml'), /c\.yaml: images\[0\]\.platforms: required non-empty list/);
  assert.throws(() => catalogFromData({}, 'c.yaml'), /expected a top-level "images" list/);
  assert.throws(() => catalogFromData({ images: [{ name: 'x', mediaType: 'manifest', platforms: ['linux/amd64', 'linux/arm64'] }] }), /exactly one platform/);
});
