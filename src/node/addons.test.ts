import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import type { Pod, PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import { coreDNSManifests, flannelManifests, kubeSystemAddons } from './addons.js';
import { isNetworkPluginPod } from './cni.js';
import { createDefaultCatalog } from './runtime/builtin-images.js';
import { parseImageReference } from './runtime/image-ref.js';
import { resolvePull } from './runtime/pull.js';
import type { Platform } from './runtime/platform.js';

const examplePath = fileURLToPath(new URL('../../../examples/flannel.yaml', import.meta.url));

void test('examples/flannel.yaml is exactly flannelManifests({namespace: kube-flannel})', () => {
  const docs = parseAllDocuments(readFileSync(examplePath, 'utf8')).map((d) => d.toJS() as unknown);
  assert.deepEqual(docs, flannelManifests({ namespace: 'kube-flannel' }));
});

function templates(objs: ReturnType<typeof kubeSystemAddons>): Array<{ name: string; template: PodTemplateSpec }> {
  return objs
    .filter((o) => o.kind === 'DaemonSet' || o.kind === 'Deployment')
    .map((o) => ({ name: o.metadata?.name ?? '', template: (o as unknown as { spec: { template: PodTemplateSpec } }).spec.template }));
}

void test('kube-system add-ons: separate Linux and Windows DaemonSets for kube-proxy and flannel, CoreDNS and kube-dns', () => {
  const objs = kubeSystemAddons();
  assert.ok(objs.every((o) => o.metadata?.namespace === 'kube-system' || ['ClusterRole', 'ClusterRoleBinding'].includes(o.kind ?? '')));
  const ds = templates(objs).map((t) => [t.name, t.template.spec?.nodeSelector?.['kubernetes.io/os']]);
  assert.deepEqual(ds, [
    ['kube-proxy', 'linux'],
    ['kube-proxy-windows', 'windows'],
    ['kube-flannel-ds', 'linux'],
    ['kube-flannel-ds-windows', 'windows'],
    ['coredns', 'linux'],
  ]);
  const dns = coreDNSManifests().find((o) => o.kind === 'Service') as { spec?: { clusterIP?: string } } | undefined;
  assert.equal(dns?.spec?.clusterIP, '10.96.0.10');
  const deploy = coreDNSManifests().find((o) => o.kind === 'Deployment') as { spec?: { replicas?: number } } | undefined;
  assert.equal(deploy?.spec?.replicas, 2);
});

void test('flannel pods count as the network plugin; kube-proxy and CoreDNS do not', () => {
  for (const t of templates(kubeSystemAddons())) {
    const pod: Pod = { metadata: t.template.metadata ?? {}, spec: t.template.spec ?? { containers: [] } };
    assert.equal(isNetworkPluginPod(pod), t.name.startsWith('kube-flannel'), t.name);
  }
});

void test('every add-on image pulls on every node of its OS in the default topology', () => {
  const catalog = createDefaultCatalog();
  const hosts: Record<string, Platform[]> = {
    linux: [
      { os: 'linux', architecture: 'amd64' },
      { os: 'linux', architecture: 'arm64' },
    ],
    windows: [
      { os: 'windows', architecture: 'amd64', osVersion: '10.0.17763.6532' },
      { os: 'windows', architecture: 'amd64', osVersion: '10.0.20348.2849' },
    ],
  };
  for (const t of templates(kubeSystemAddons())) {
    const os = t.template.spec?.nodeSelector?.['kubernetes.io/os'] ?? 'linux';
    for (const c of [...(t.template.spec?.initContainers ?? []), ...(t.template.spec?.containers ?? [])]) {
      for (const h of hosts[os] ?? []) {
        const r = resolvePull(catalog, parseImageReference(c.image ?? ''), h);
        assert.ok(r.ok && r.image.startFailure === undefined, `${t.name}/${c.name} ${c.image ?? ''} on ${h.os}/${h.architecture} ${h.osVersion ?? ''}`);
      }
    }
  }
});
