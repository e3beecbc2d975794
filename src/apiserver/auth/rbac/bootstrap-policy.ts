/**
 * The default roles and bindings kube-apiserver reconciles at start (plugin/pkg/auth/authorizer/rbac/
 * bootstrappolicy, v1.32): labelled `kubernetes.io/bootstrapping: rbac-defaults`, annotated
 * `rbac.authorization.k8s.io/autoupdate: "true"`. Only the roles users meet and the ones kubemix's own
 * components need are listed; the per-controller `system:controller:*` roles are not (kubemix's controller
 * manager acts as one identity, see `kubemixControllerManagerRole`).
 */
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, Subject } from 'kubernetes-types/rbac/v1.js';

export const autoUpdateAnnotation = 'rbac.authorization.k8s.io/autoupdate';
export const bootstrappingLabel = 'kubernetes.io/bootstrapping';

const read = ['get', 'list', 'watch'];
const write = ['create', 'update', 'patch', 'delete', 'deletecollection'];
const readWrite = [...read, ...write];

const legacy = '';
const apps = 'apps';
const authentication = 'authentication.k8s.io';
const authorization = 'authorization.k8s.io';
const autoscaling = 'autoscaling';
const batch = 'batch';
const certificates = 'certificates.k8s.io';
const coordination = 'coordination.k8s.io';
const discovery = 'discovery.k8s.io';
const events = 'events.k8s.io';
const extensions = 'extensions';
const networking = 'networking.k8s.io';
const policy = 'policy';
const rbac = 'rbac.authorization.k8s.io';
const storage = 'storage.k8s.io';
const node = 'node.k8s.io';

function rule(verbs: string[], groups: string[], resources: string[], names?: string[]): PolicyRule {
  return { verbs, apiGroups: groups, resources, ...(names !== undefined ? { resourceNames: names } : {}) };
}

function urls(verbs: string[], ...nonResourceURLs: string[]): PolicyRule {
  return { verbs, nonResourceURLs };
}

const eventsRule = (): PolicyRule => rule(['create', 'update', 'patch'], [legacy, events], ['events']);

function meta(name: string, labels: Record<string, string> = {}, namespace?: string): NonNullable<ClusterRole['metadata']> {
  return {
    name,
    ...(namespace !== undefined ? { namespace } : {}),
    labels: { ...labels, [bootstrappingLabel]: 'rbac-defaults' },
    annotations: { [autoUpdateAnnotation]: 'true' },
  };
}

function clusterRole(name: string, rules: PolicyRule[], labels: Record<string, string> = {}): ClusterRole {
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: meta(name, labels), rules };
}

function aggregated(name: string, selectorLabel: string, labels: Record<string, string> = {}): ClusterRole {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: meta(name, labels),
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [selectorLabel]: 'true' } }] },
    rules: [],
  };
}

export const group = (name: string): Subject => ({ apiGroup: rbac, kind: 'Group', name });
export const user = (name: string): Subject => ({ apiGroup: rbac, kind: 'User', name });
export const serviceAccount = (namespace: string, name: string): Subject => ({ kind: 'ServiceAccount', name, namespace });

function clusterBinding(name: string, subjects: Subject[], roleName = name): ClusterRoleBinding {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: meta(name),
    roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: roleName },
    ...(subjects.length > 0 ? { subjects } : {}),
  };
}

/** The rules of `system:node`, which the Node authorizer also applies to every node (`NodeRules`). */
export function nodeRules(): PolicyRule[] {
  return [
    rule(['create'], [authentication], ['tokenreviews']),
    rule(['create'], [authorization], ['subjectaccessreviews', 'localsubjectaccessreviews']),
    rule(read, [legacy], ['services']),
    rule(['create', 'get', 'list', 'watch'], [legacy], ['nodes']),
    rule(['update', 'patch'], [legacy], ['nodes/status']),
    rule(['update', 'patch'], [legacy], ['nodes']),
    rule(['create', 'update', 'patch'], [legacy], ['events']),
    rule(read, [legacy], ['pods']),
    rule(['create', 'delete'], [legacy], ['pods']),
    rule(['update', 'patch'], [legacy], ['pods/status']),
    rule(['create'], [legacy], ['pods/eviction']),
    rule(read, [legacy], ['secrets', 'configmaps']),
    rule(['get'], [legacy], ['persistentvolumeclaims', 'persistentvolumes']),
    rule(['get'], [legacy], ['endpoints']),
    rule(['create', 'get', 'list', 'watch'], [certificates], ['certificatesigningrequests']),
    rule(['get', 'create', 'update', 'patch', 'delete'], [coordination], ['leases']),
    rule(['get'], [storage], ['volumeattachments']),
    rule(['get', 'update', 'patch'], [legacy], ['persistentvolumeclaims/status']),
    rule(['create'], [legacy], ['serviceaccounts/token']),
    rule(['get', 'watch', 'list'], [storage], ['csidrivers']),
    rule(['get', 'create', 'update', 'patch', 'delete'], [storage], ['csinodes']),
    rule(read, [node], ['runtimeclasses']),
  ];
}

/** Default ClusterRoles (`ClusterRoles()`). */
export function clusterRoles(): ClusterRole[] {
  const toAdmin = { 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' };
  const toEdit = { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' };
  const toView = { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' };
  return [
    clusterRole('cluster-admin', [rule(['*'], ['*'], ['*']), urls(['*'], '*')]),
    clusterRole('system:discovery', [urls(['get'], '/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/')]),
    clusterRole('system:monitoring', [urls(['get'], '/healthz', '/healthz/*', '/livez', '/livez/*', '/metrics', '/metrics/slis', '/readyz', '/readyz/*')]),
    clusterRole('system:basic-user', [
      rule(['create'], [authorization], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
      rule(['create'], [authentication], ['selfsubjectreviews']),
    ]),
    clusterRole('system:public-info-viewer', [urls(['get'], '/healthz', '/livez', '/readyz', '/version', '/version/')]),
    aggregated('admin', 'rbac.authorization.k8s.io/aggregate-to-admin'),
    aggregated('edit', 'rbac.authorization.k8s.io/aggregate-to-edit', toAdmin),
    aggregated('view', 'rbac.authorization.k8s.io/aggregate-to-view', toEdit),
    clusterRole('system:aggregate-to-admin', [
      rule(['create'], [authorization], ['localsubjectaccessreviews']),
      rule(readWrite, [rbac], ['roles', 'rolebindings']),
    ], toAdmin),
    clusterRole('system:aggregate-to-edit', [
      rule(read, [legacy], ['pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward', 'secrets', 'services/proxy']),
      rule(['impersonate'], [legacy], ['serviceaccounts']),
      rule(write, [legacy], ['pods', 'pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward']),
      rule(['create'], [legacy], ['pods/eviction']),
      rule(write, [legacy], ['replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/proxy', 'persistentvolumeclaims', 'configmaps', 'secrets', 'events']),
      rule(['create'], [legacy], ['serviceaccounts/token']),
      rule(write, [apps], ['statefulsets', 'statefulsets/scale', 'daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback', 'replicasets', 'replicasets/scale']),
      rule(write, [autoscaling], ['horizontalpodautoscalers']),
      rule(write, [batch], ['jobs', 'cronjobs']),
      rule(write, [extensions], ['daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback', 'ingresses', 'replicasets', 'replicasets/scale', 'replicationcontrollers/scale', 'networkpolicies']),
      rule(write, [policy], ['poddisruptionbudgets']),
      rule(write, [networking], ['networkpolicies', 'ingresses']),
      rule(write, [coordination], ['leases']),
    ], toEdit),
    clusterRole('system:aggregate-to-view', [
      rule(read, [legacy], ['pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'configmaps']),
      rule(read, [legacy], ['limitranges', 'resourcequotas', 'bindings', 'events', 'pods/status', 'resourcequotas/status', 'namespaces/status', 'replicationcontrollers/status', 'pods/log']),
      rule(read, [legacy], ['namespaces']),
      rule(read, [discovery], ['endpointslices']),
      rule(read, [apps], ['controllerrevisions', 'statefulsets', 'statefulsets/status', 'statefulsets/scale', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/status', 'deployments/scale', 'replicasets', 'replicasets/status', 'replicasets/scale']),
      rule(read, [autoscaling], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
      rule(read, [batch], ['jobs', 'cronjobs', 'cronjobs/status', 'jobs/status']),
      rule(read, [extensions], ['daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'ingresses', 'ingresses/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'replicationcontrollers/scale', 'networkpolicies']),
      rule(read, [policy], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
      rule(read, [networking], ['ingresses', 'ingresses/status', 'networkpolicies']),
      rule(read, [coordination], ['leases']),
    ], toView),
    clusterRole('system:node', nodeRules()),
    clusterRole('system:node-proxier', [
      rule(['list', 'watch'], [legacy], ['services', 'endpoints']),
      rule(['get', 'list', 'watch'], [legacy], ['nodes']),
      eventsRule(),
      rule(['list', 'watch'], [discovery], ['endpointslices']),
    ]),
    clusterRole('system:node-bootstrapper', [rule(['create', 'get', 'list', 'watch'], [certificates], ['certificatesigningrequests'])]),
    clusterRole('system:auth-delegator', [
      rule(['create'], [authentication], ['tokenreviews']),
      rule(['create'], [authorization], ['subjectaccessreviews']),
    ]),
    clusterRole('system:kube-aggregator', [rule(read, [legacy], ['services', 'endpoints'])]),
    clusterRole('system:kube-controller-manager', [
      eventsRule(),
      rule(['create'], [coordination], ['leases']),
      rule(['get', 'update'], [coordination], ['leases'], ['kube-controller-manager']),
      rule(['create'], [legacy], ['secrets', 'serviceaccounts']),
      rule(['delete'], [legacy], ['secrets']),
      rule(['get'], [legacy], ['namespaces', 'secrets', 'serviceaccounts', 'configmaps']),
      rule(['update'], [legacy], ['secrets', 'serviceaccounts']),
      rule(['create'], [authentication], ['tokenreviews']),
      rule(['create'], [authorization], ['subjectaccessreviews']),
      rule(['list', 'watch'], ['*'], ['*']),
      rule(['create'], [legacy], ['serviceaccounts/token']),
    ]),
    clusterRole('system:kube-dns', [rule(['list', 'watch'], [legacy], ['endpoints', 'services'])]),
    clusterRole('system:kube-scheduler', [
      eventsRule(),
      rule(['create'], [coordination], ['leases']),
      rule(['get', 'update'], [coordination], ['leases'], ['kube-scheduler']),
      rule(read, [legacy], ['nodes']),
      rule(['delete', 'get', 'list', 'watch'], [legacy], ['pods']),
      rule(['create'], [legacy], ['bindings', 'pods/binding']),
      rule(['patch', 'update'], [legacy], ['pods/status']),
      rule(read, [legacy], ['replicationcontrollers', 'services']),
      rule(read, [apps, extensions], ['replicasets']),
      rule(read, [apps], ['statefulsets']),
      rule(read, [policy], ['poddisruptionbudgets']),
      rule(read, [legacy], ['persistentvolumeclaims', 'persistentvolumes']),
      rule(['create'], [authentication], ['tokenreviews']),
      rule(['create'], [authorization], ['subjectaccessreviews']),
      rule(read, [storage], ['csinodes']),
      rule(read, [legacy], ['namespaces']),
      rule(read, [storage], ['csidrivers']),
      rule(read, [storage], ['csistoragecapacities']),
    ]),
    clusterRole('system:volume-scheduler', [
      rule(readWrite.filter((v) => v !== 'create' && v !== 'delete' && v !== 'deletecollection'), [legacy], ['persistentvolumes']),
      rule(read, [storage], ['storageclasses']),
      rule(['get', 'list', 'patch', 'update', 'watch'], [legacy], ['persistentvolumeclaims']),
    ]),
    clusterRole('system:persistent-volume-provisioner', [
      rule(['create', 'delete', 'get', 'list', 'watch'], [legacy], ['persistentvolumes']),
      rule(['get', 'list', 'watch', 'update'], [legacy], ['persistentvolumeclaims']),
      rule(read, [storage], ['storageclasses']),
      rule(['watch'], [legacy], ['events']),
      eventsRule(),
    ]),
    clusterRole('system:certificates.k8s.io:certificatesigningrequests:nodeclient', [rule(['create'], [certificates], ['certificatesigningrequests/nodeclient'])]),
    clusterRole('system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', [rule(['create'], [certificates], ['certificatesigningrequests/selfnodeclient'])]),
    clusterRole('system:certificates.k8s.io:legacy-unknown-approver', [rule(['approve'], [certificates], ['signers'], ['kubernetes.io/legacy-unknown'])]),
    clusterRole('system:certificates.k8s.io:kubelet-serving-approver', [rule(['approve'], [certificates], ['signers'], ['kubernetes.io/kubelet-serving'])]),
    clusterRole('system:certificates.k8s.io:kube-apiserver-client-approver', [rule(['approve'], [certificates], ['signers'], ['kubernetes.io/kube-apiserver-client'])]),
    clusterRole('system:certificates.k8s.io:kube-apiserver-client-kubelet-approver', [rule(['approve'], [certificates], ['signers'], ['kubernetes.io/kube-apiserver-client-kubelet'])]),
    clusterRole('system:service-account-issuer-discovery', [urls(['get'], '/.well-known/openid-configuration', '/.well-known/openid-configuration/', '/openid/v1/jwks', '/openid/v1/jwks/')]),
    kubemixControllerManagerRole(),
  ];
}

/**
 * kube-controller-manager runs each controller with its own service account (`--use-service-account-credentials`)
 * bound to a `system:controller:*` role. kubemix's controller manager acts as one user, so that user gets
 * the union of those roles' powers through this role (every verb on the resources controllers manage).
 */
export function kubemixControllerManagerRole(): ClusterRole {
  return clusterRole('kubemix:controller-manager', [
    rule(['*'], [legacy, apps, batch, policy, discovery, coordination, certificates, events, autoscaling, networking, storage, node], ['*']),
    // The garbage collector and the namespace controller act on every resource of every group
    // (system:controller:generic-garbage-collector and system:controller:namespace-controller).
    rule(['get', 'list', 'watch', 'patch', 'update', 'delete', 'deletecollection'], ['*'], ['*']),
    rule(['approve', 'sign'], [certificates], ['signers']),
  ]);
}

/** Default ClusterRoleBindings (`ClusterRoleBindings()`). */
export function clusterRoleBindings(): ClusterRoleBinding[] {
  return [
    clusterBinding('cluster-admin', [group('system:masters')]),
    clusterBinding('system:monitoring', [group('system:monitoring')]),
    clusterBinding('system:discovery', [group('system:authenticated')]),
    clusterBinding('system:basic-user', [group('system:authenticated')]),
    clusterBinding('system:public-info-viewer', [group('system:authenticated'), group('system:unauthenticated')]),
    clusterBinding('system:node-proxier', [user('system:kube-proxy')]),
    clusterBinding('system:kube-controller-manager', [user('system:kube-controller-manager')]),
    clusterBinding('system:kube-dns', [serviceAccount('kube-system', 'kube-dns')]),
    clusterBinding('system:kube-scheduler', [user('system:kube-scheduler')]),
    clusterBinding('system:volume-scheduler', [user('system:kube-scheduler')]),
    clusterBinding('system:node', []),
    clusterBinding('system:service-account-issuer-discovery', [group('system:serviceaccounts')]),
    clusterBinding('kubemix:controller-manager', [user('system:kube-controller-manager')]),
  ];
}

function role(namespace: string, name: string, rules: PolicyRule[]): Role {
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: meta(name, {}, namespace), rules };
}

function roleBinding(namespace: string, name: string, roleName: string, subjects: Subject[]): RoleBinding {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: meta(name, {}, namespace),
    roleRef: { apiGroup: rbac, kind: 'Role', name: roleName },
    subjects,
  };
}

/** Default namespaced Roles (`NamespaceRoles()`). */
export function namespaceRoles(): Role[] {
  return [
    role('kube-system', 'extension-apiserver-authentication-reader', [rule(['get', 'list', 'watch'], [legacy], ['configmaps'], ['extension-apiserver-authentication'])]),
    role('kube-system', 'system::leader-locking-kube-controller-manager', [
      rule(['watch'], [legacy], ['configmaps']),
      rule(['get', 'update'], [legacy], ['configmaps'], ['kube-controller-manager']),
    ]),
    role('kube-system', 'system::leader-locking-kube-scheduler', [
      rule(['watch'], [legacy], ['configmaps']),
      rule(['get', 'update'], [legacy], ['configmaps'], ['kube-scheduler']),
    ]),
    role('kube-system', 'system:controller:bootstrap-signer', [rule(read, [legacy], ['secrets'])]),
    role('kube-system', 'system:controller:token-cleaner', [rule(['delete', 'get', 'list', 'watch'], [legacy], ['secrets']), eventsRule()]),
    role('kube-public', 'system:controller:bootstrap-signer', [rule(read, [legacy], ['configmaps']), rule(['update'], [legacy], ['configmaps'], ['cluster-info']), eventsRule()]),
  ];
}

/** Default namespaced RoleBindings (`NamespaceRoleBindings()`). */
export function namespaceRoleBindings(): RoleBinding[] {
  return [
    roleBinding('kube-system', 'system::extension-apiserver-authentication-reader', 'extension-apiserver-authentication-reader', [user('system:kube-controller-manager'), user('system:kube-scheduler')]),
    roleBinding('kube-system', 'system::leader-locking-kube-controller-manager', 'system::leader-locking-kube-controller-manager', [user('system:kube-controller-manager'), serviceAccount('kube-system', 'kube-controller-manager')]),
    roleBinding('kube-system', 'system::leader-locking-kube-scheduler', 'system::leader-locking-kube-scheduler', [user('system:kube-scheduler'), serviceAccount('kube-system', 'kube-scheduler')]),
    roleBinding('kube-system', 'system:controller:bootstrap-signer', 'system:controller:bootstrap-signer', [serviceAccount('kube-system', 'bootstrap-signer')]),
    roleBinding('kube-system', 'system:controller:token-cleaner', 'system:controller:token-cleaner', [serviceAccount('kube-system', 'token-cleaner')]),
    roleBinding('kube-public', 'system:controller:bootstrap-signer', 'system:controller:bootstrap-signer', [serviceAccount('kube-system', 'bootstrap-signer')]),
  ];
}
