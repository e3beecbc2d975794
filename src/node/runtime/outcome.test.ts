import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDefaultCatalog } from './builtin-images.js';
import { catalogFromData } from './catalog.js';
import { imageOutcome, nodePlatform } from './outcome.js';

const catalog = createDefaultCatalog(
  catalogFromData({ images: [{ name: 'example.com/legacy/app', mediaType: 'manifest', platforms: [{ os: 'windows', architecture: 'amd64', osVersion: '10.0.17763.1' }] }] }),
);
const win2019 = nodePlatform({ os: 'windows', arch: 'amd64', windowsBuild: '10.0.17763', kernelVersion: '10.0.17763.6532' });
const win2022 = nodePlatform({ os: 'windows', arch: 'amd64', windowsBuild: '10.0.20348' });
const arm = nodePlatform({ os: 'linux', arch: 'arm64' });

void test('node platforms carry the Windows version containerd compares', () => {
  assert.deepEqual(win2019, { os: 'windows', architecture: 'amd64', osVersion: '10.0.17763.6532' });
  assert.deepEqual(win2022, { os: 'windows', architecture: 'amd64', osVersion: '10.0.20348.0' });
  assert.deepEqual(arm, { os: 'linux', architecture: 'arm64' });
});

void test('outcomes: runs, pull fails, start fails, invalid name', () => {
  assert.equal(imageOutcome(catalog, 'mcr.microsoft.com/windows/servercore:ltsc2019', win2019).kind, 'runs');
  assert.deepEqual(imageOutcome(catalog, 'mcr.microsoft.com/windows/servercore:ltsc2019', win2022), {
    kind: 'pullFails',
    message:
      'Failed to pull image "mcr.microsoft.com/windows/servercore:ltsc2019": rpc error: code = NotFound desc = failed to pull and unpack image "mcr.microsoft.com/windows/servercore:ltsc2019": no match for platform in manifest: not found',
  });
  const exec = imageOutcome(catalog, 'mcr.microsoft.com/mssql/server:2022-latest', arm);
  assert.ok(exec.kind === 'startFails' && exec.reason === 'execFormat');
  const os = imageOutcome(catalog, 'example.com/legacy/app:1', win2022);
  assert.ok(os.kind === 'startFails' && os.reason === 'osMismatch');
  assert.equal(imageOutcome(catalog, 'Bad:Image', arm).kind, 'invalidName');
});
