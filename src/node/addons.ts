/**
 * The kube-system add-ons `kubemix up` pre-installs, as a kubeadm cluster with flannel and the
 * sig-windows-tools Windows DaemonSets has them: kube-proxy (Linux and Windows DaemonSets), flannel (Linux and
 * Windows DaemonSets), CoreDNS (Deployment of 2, Linux only, tolerating the control-plane taint) and the
 * kube-dns Service at 10.96.0.10. `flannelManifests({namespace: 'kube-flannel'})` is the same flannel as
 * `examples/flannel.yaml` (the upstream kube-flannel.yml layout plus a Windows DaemonSet).
 */
import type { KubeObject } from '../client/client.js';

export interface AddonOptions {
  /** kube-proxy image tag (default v1.32.0). */
  kubernetesVersion?: string;
  /** flannel's `Network` (default 10.244.0.0/16, kubeadm's `--pod-network-cidr` for flannel). */
  podNetworkCIDR?: string;
  /** kube-dns ClusterIP (default 10.96.0.10). */
  dnsServiceIP?: string;
  clusterDomain?: string;
}

export const flannelVersion = 'v0.26.1';
export const flannelCniPluginVersion = 'v1.6.0-flannel1';
export const coreDNSVersion = 'v1.11.3';

const hostProcess = { windowsOptions: { hostProcess: true, runAsUserName: 'NT AUTHORITY\\system' } };

/** Namespace (unless kube-system), RBAC, ServiceAccount, ConfigMap and the Linux and Windows DaemonSets. */
export function flannelManifests(opts: AddonOptions & { namespace?: string } = {}): KubeObject[] {
  const ns = opts.namespace ?? 'kube-flannel';
  const network = opts.podNetworkCIDR ?? '10.244.0.0/16';
  const objects: KubeObject[] = [];
  if (ns !== 'kube-system') {
    objects.push({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: ns, labels: { 'k8s-app': 'flannel', 'pod-security.kubernetes.io/enforce': 'privileged' } },
    });
  }
  objects.push(
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'flannel', labels: { 'k8s-app': 'flannel' } },
      rules: [
        { apiGroups: [''], resources: ['pods'], verbs: ['get'] },
        { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: [''], resources: ['nodes/status'], verbs: ['patch'] },
      ],
    } as KubeObject,
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'flannel', labels: { 'k8s-app': 'flannel' } },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'flannel' },
      subjects: [{ kind: 'ServiceAccount', name: 'flannel', namespace: ns }],
    } as KubeObject,
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'flannel', namespace: ns, labels: { 'k8s-app': 'flannel' } } },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'kube-flannel-cfg', namespace: ns, labels: { tier: 'node', 'k8s-app': 'flannel', app: 'flannel' } },
      data: {
        'cni-conf.json': `${JSON.stringify(
          {
            name: 'cbr0',
            cniVersion: '0.3.1',
            plugins: [
              { type: 'flannel', delegate: { hairpinMode: true, isDefaultGateway: true } },
              { type: 'portmap', capabilities: { portMappings: true } },
            ],
          },
          null,
          2,
        )}\n`,
        'net-conf.json': `${JSON.stringify({ Network: network, EnableNFTables: false, Backend: { Type: 'vxlan', VNI: 4096, Port: 4789 } }, null, 2)}\n`,
      },
    } as KubeObject,
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'kube-flannel-ds', namespace: ns, labels: { tier: 'node', app: 'flannel', 'k8s-app': 'flannel' } },
      spec: {
        selector: { matchLabels: { app: 'flannel' } },
        template: {
          metadata: { labels: { tier: 'node', app: 'flannel', 'k8s-app': 'flannel' } },
          spec: {
            nodeSelector: { 'kubernetes.io/os': 'linux' },
            hostNetwork: true,
            priorityClassName: 'system-node-critical',
            tolerations: [{ operator: 'Exists', effect: 'NoSchedule' }],
            serviceAccountName: 'flannel',
            initContainers: [
              {
                name: 'install-cni-plugin',
                image: `docker.io/flannel/flannel-cni-plugin:${flannelCniPluginVersion}`,
                command: ['cp'],
                args: ['-f', '/flannel', '/opt/cni/bin/flannel'],
                volumeMounts: [{ name: 'cni-plugin', mountPath: '/opt/cni/bin' }],
              },
              {
                name: 'install-cni',
                image: `docker.io/flannel/flannel:${flannelVersion}`,
                command: ['cp'],
                args: ['-f', '/etc/kube-flannel/cni-conf.json', '/etc/cni/net.d/10-flannel.conflist'],
                volumeMounts: [
                  { name: 'cni', mountPath: '/etc/cni/net.d' },
                  { name: 'flannel-cfg', mountPath: '/etc/kube-flannel/' },
                ],
              },
            ],
            containers: [
              {
                name: 'kube-flannel',
                image: `docker.io/flannel/flannel:${flannelVersion}`,
                command: ['/opt/bin/flanneld'],
                args: ['--ip-masq', '--kube-subnet-mgr'],
                resources: { requests: { cpu: '100m', memory: '50Mi' } },
                securityContext: { privileged: false, capabilities: { add: ['NET_ADMIN', 'NET_RAW'] } },
                env: [
                  { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
                  { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
                  { name: 'EVENT_QUEUE_DEPTH', value: '5000' },
                ],
                volumeMounts: [
                  { name: 'run', mountPath: '/run/flannel' },
                  { name: 'flannel-cfg', mountPath: '/etc/kube-flannel/' },
                  { name: 'xtables-lock', mountPath: '/run/xtables.lock' },
                ],
              },
            ],
            volumes: [
              { name: 'run', hostPath: { path: '/run/flannel' } },
              { name: 'cni-plugin', hostPath: { path: '/opt/cni/bin' } },
              { name: 'cni', hostPath: { path: '/etc/cni/net.d' } },
              { name: 'flannel-cfg', configMap: { name: 'kube-flannel-cfg' } },
              { name: 'xtables-lock', hostPath: { path: '/run/xtables.lock', type: 'FileOrCreate' } },
            ],
          },
        },
      },
    } as KubeObject,
    {
      // sig-windows-tools' flannel overlay as a HostProcess container: one image for every Windows build.
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'kube-flannel-ds-windows', namespace: ns, labels: { tier: 'node', app: 'flannel-windows', 'k8s-app': 'flannel' } },
      spec: {
        selector: { matchLabels: { app: 'flannel-windows' } },
        template: {
          metadata: { labels: { tier: 'node', app: 'flannel-windows', 'k8s-app': 'flannel' } },
          spec: {
            nodeSelector: { 'kubernetes.io/os': 'windows' },
            securityContext: hostProcess,
            hostNetwork: true,
            priorityClassName: 'system-node-critical',
            serviceAccountName: 'flannel',
            tolerations: [
              { key: 'os', operator: 'Equal', value: 'windows', effect: 'NoSchedule' },
              { operator: 'Exists', effect: 'NoSchedule' },
            ],
            containers: [
              {
                name: 'kube-flannel',
                image: `sigwindowstools/flannel:${flannelVersion}-hostprocess`,
                command: ['pwsh'],
                args: ['-file', '$env:CONTAINER_SANDBOX_MOUNT_POINT/flannel/start.ps1'],
                workingDir: '$env:CONTAINER_SANDBOX_MOUNT_POINT/flannel/',
                imagePullPolicy: 'Always',
                env: [
                  { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
                  { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
                ],
                volumeMounts: [{ name: 'flannel-cfg', mountPath: '/etc/kube-flannel/' }],
              },
            ],
            volumes: [{ name: 'flannel-cfg', configMap: { name: 'kube-flannel-cfg' } }],
          },
        },
      },
    } as KubeObject,
  );
  return objects;
}

/** kube-proxy: ServiceAccount, RBAC, ConfigMap, the kubeadm Linux DaemonSet and the Windows HostProcess one. */
export function kubeProxyManifests(opts: AddonOptions = {}): KubeObject[] {
  const version = opts.kubernetesVersion ?? 'v1.32.0';
  const network = opts.podNetworkCIDR ?? '10.244.0.0/16';
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'kube-proxy', namespace: 'kube-system' } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'kubeadm:node-proxier' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:node-proxier' },
      subjects: [{ kind: 'ServiceAccount', name: 'kube-proxy', namespace: 'kube-system' }],
    } as KubeObject,
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'kube-proxy', namespace: 'kube-system', labels: { app: 'kube-proxy' } },
      data: {
        'config.conf': [
          'apiVersion: kubeproxy.config.k8s.io/v1alpha1',
          'kind: KubeProxyConfiguration',
          'bindAddress: 0.0.0.0',
          `clusterCIDR: ${network}`,
          'mode: ""',
          'clientConnection:',
          '  kubeconfig: /var/lib/kube-proxy/kubeconfig.conf',
          '',
        ].join('\n'),
      },
    } as KubeObject,
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'kube-proxy', namespace: 'kube-system', labels: { 'k8s-app': 'kube-proxy' } },
      spec: {
        selector: { matchLabels: { 'k8s-app': 'kube-proxy' } },
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
        template: {
          metadata: { labels: { 'k8s-app': 'kube-proxy' } },
          spec: {
            containers: [
              {
                name: 'kube-proxy',
                image: `registry.k8s.io/kube-proxy:${version}`,
                imagePullPolicy: 'IfNotPresent',
                command: ['/usr/local/bin/kube-proxy', '--config=/var/lib/kube-proxy/config.conf', '--hostname-override=$(NODE_NAME)'],
                env: [{ name: 'NODE_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'spec.nodeName' } } }],
                securityContext: { privileged: true },
                volumeMounts: [
                  { name: 'kube-proxy', mountPath: '/var/lib/kube-proxy' },
                  { name: 'xtables-lock', mountPath: '/run/xtables.lock' },
                  { name: 'lib-modules', mountPath: '/lib/modules', readOnly: true },
                ],
              },
            ],
            hostNetwork: true,
            nodeSelector: { 'kubernetes.io/os': 'linux' },
            priorityClassName: 'system-node-critical',
            serviceAccountName: 'kube-proxy',
            tolerations: [{ operator: 'Exists' }],
            volumes: [
              { name: 'kube-proxy', configMap: { name: 'kube-proxy' } },
              { name: 'xtables-lock', hostPath: { path: '/run/xtables.lock', type: 'FileOrCreate' } },
              { name: 'lib-modules', hostPath: { path: '/lib/modules' } },
            ],
          },
        },
      },
    } as KubeObject,
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'kube-proxy-windows', namespace: 'kube-system', labels: { 'k8s-app': 'kube-proxy' } },
      spec: {
        selector: { matchLabels: { 'k8s-app': 'kube-proxy-windows' } },
        template: {
          metadata: { labels: { 'k8s-app': 'kube-proxy-windows' } },
          spec: {
            serviceAccountName: 'kube-proxy',
            securityContext: hostProcess,
            hostNetwork: true,
            priorityClassName: 'system-node-critical',
            containers: [
              {
                name: 'kube-proxy',
                image: `sigwindowstools/kube-proxy:${version}-flannel-hostprocess`,
                args: ['$env:CONTAINER_SANDBOX_MOUNT_POINT/kube-proxy/start.ps1'],
                workingDir: '$env:CONTAINER_SANDBOX_MOUNT_POINT/kube-proxy/',
                env: [
                  { name: 'NODE_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'spec.nodeName' } } },
                  { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
                ],
                volumeMounts: [{ name: 'kube-proxy', mountPath: '/var/lib/kube-proxy' }],
              },
            ],
            nodeSelector: { 'kubernetes.io/os': 'windows' },
            tolerations: [{ key: 'CriticalAddonsOnly', operator: 'Exists' }, { operator: 'Exists' }],
            volumes: [{ name: 'kube-proxy', configMap: { name: 'kube-proxy' } }],
          },
        },
      },
    } as KubeObject,
  ];
}

/** CoreDNS as kubeadm installs it: RBAC, ConfigMap, Deployment (2 replicas, Linux only) and the kube-dns Service. */
export function coreDNSManifests(opts: AddonOptions = {}): KubeObject[] {
  const domain = opts.clusterDomain ?? 'cluster.local';
  const corefile = [
    '.:53 {',
    '    errors',
    '    health {',
    '       lameduck 5s',
    '    }',
    '    ready',
    `    kubernetes ${domain} in-addr.arpa ip6.arpa {`,
    '       pods insecure',
    '       fallthrough in-addr.arpa ip6.arpa',
    '       ttl 30',
    '    }',
    '    prometheus :9153',
    '    forward . /etc/resolv.conf {',
    '       max_concurrent 1000',
    '    }',
    '    cache 30 {',
    `       disable success ${domain}`,
    `       disable denial ${domain}`,
    '    }',
    '    loop',
    '    reload',
    '    loadbalance',
    '}',
    '',
  ].join('\n');
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'coredns', namespace: 'kube-system' } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'system:coredns' },
      rules: [
        { apiGroups: [''], resources: ['endpoints', 'services', 'pods', 'namespaces'], verbs: ['list', 'watch'] },
        { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'watch'] },
      ],
    } as KubeObject,
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'system:coredns' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:coredns' },
      subjects: [{ kind: 'ServiceAccount', name: 'coredns', namespace: 'kube-system' }],
    } as KubeObject,
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'coredns', namespace: 'kube-system' }, data: { Corefile: corefile } } as KubeObject,
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'coredns', namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' } },
      spec: {
        replicas: 2,
        selector: { matchLabels: { 'k8s-app': 'kube-dns' } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
        template: {
          metadata: { labels: { 'k8s-app': 'kube-dns' } },
          spec: {
            affinity: {
              podAntiAffinity: {
                preferredDuringSchedulingIgnoredDuringExecution: [
                  {
                    weight: 100,
                    podAffinityTerm: {
                      labelSelector: { matchExpressions: [{ key: 'k8s-app', operator: 'In', values: ['kube-dns'] }] },
                      topologyKey: 'kubernetes.io/hostname',
                    },
                  },
                ],
              },
            },
            containers: [
              {
                name: 'coredns',
                image: `registry.k8s.io/coredns/coredns:${coreDNSVersion}`,
                imagePullPolicy: 'IfNotPresent',
                args: ['-conf', '/etc/coredns/Corefile'],
                resources: { limits: { memory: '170Mi' }, requests: { cpu: '100m', memory: '70Mi' } },
                ports: [
                  { containerPort: 53, name: 'dns', protocol: 'UDP' },
                  { containerPort: 53, name: 'dns-tcp', protocol: 'TCP' },
                  { containerPort: 9153, name: 'metrics', protocol: 'TCP' },
                ],
                livenessProbe: { httpGet: { path: '/health', port: 8080, scheme: 'HTTP' }, initialDelaySeconds: 60, timeoutSeconds: 5, successThreshold: 1, failureThreshold: 5 },
                readinessProbe: { httpGet: { path: '/ready', port: 8181, scheme: 'HTTP' } },
                securityContext: { allowPrivilegeEscalation: false, capabilities: { add: ['NET_BIND_SERVICE'], drop: ['ALL'] }, readOnlyRootFilesystem: true },
                volumeMounts: [{ name: 'config-volume', mountPath: '/etc/coredns', readOnly: true }],
              },
            ],
            dnsPolicy: 'Default',
            nodeSelector: { 'kubernetes.io/os': 'linux' },
            priorityClassName: 'system-cluster-critical',
            serviceAccountName: 'coredns',
            tolerations: [
              { key: 'CriticalAddonsOnly', operator: 'Exists' },
              { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' },
            ],
            volumes: [{ name: 'config-volume', configMap: { name: 'coredns', items: [{ key: 'Corefile', path: 'Corefile' }] } }],
          },
        },
      },
    } as KubeObject,
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: 'kube-dns',
        namespace: 'kube-system',
        labels: { 'k8s-app': 'kube-dns', 'kubernetes.io/cluster-service': 'true', 'kubernetes.io/name': 'CoreDNS' },
        annotations: { 'prometheus.io/port': '9153', 'prometheus.io/scrape': 'true' },
      },
      spec: {
        clusterIP: opts.dnsServiceIP ?? '10.96.0.10',
        ports: [
          { name: 'dns', port: 53, protocol: 'UDP', targetPort: 53 },
          { name: 'dns-tcp', port: 53, protocol: 'TCP', targetPort: 53 },
          { name: 'metrics', port: 9153, protocol: 'TCP', targetPort: 9153 },
        ],
        selector: { 'k8s-app': 'kube-dns' },
      },
    } as KubeObject,
  ];
}

/**
 * Everything `kubemix up` pre-installs in kube-system, in apply order (ServiceAccounts and ConfigMaps before
 * the workloads using them): kube-proxy, flannel (in kube-system, as the chapter's cluster shows it), CoreDNS.
 */
export function kubeSystemAddons(opts: AddonOptions = {}): KubeObject[] {
  return [...kubeProxyManifests(opts), ...flannelManifests({ ...opts, namespace: 'kube-system' }), ...coreDNSManifests(opts)];
}
