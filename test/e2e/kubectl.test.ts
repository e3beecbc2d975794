/**
 * The real kubectl v1.32 against `kubemix up`: the verbs and output formats users type every day, with
 * the exact words kubectl prints against a real cluster.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile, chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestCluster, type TestCluster } from '../harness/local-cluster.js';
import { runKubectl } from '../tools/kubectl-tools.js';

const deployment = (name: string, image: string, replicas = 2): string => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  labels:
    app: ${name}
spec:
  replicas: ${replicas}
  selector:
    matchLabels:
      app: ${name}
  template:
    metadata:
      labels:
        app: ${name}
    spec:
      nodeSelector:
        kubernetes.io/os: linux
      containers:
      - name: main
        image: ${image}
`;

describe('kubectl against kubemix', () => {
  let c: TestCluster;
  before(async () => {
    c = await startTestCluster();
    await c.kubectl(['wait', '--for=condition=Ready', 'node', '--all', '--timeout=60s']);
  });
  after(async () => {
    await c.stop();
  });

  test('apply -f of a folder twice prints created, then unchanged', async () => {
    const dir = await mkdtemp(join(c.dataDir, 'manifests-'));
    await writeFile(join(dir, 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  mode: fast\n');
    await writeFile(join(dir, 'web.yaml'), deployment('folder-web', 'nginx:1.27', 1));
    const first = await c.kubectl(['apply', '-f', dir]);
    assert.equal(first, 'configmap/settings created\ndeployment.apps/folder-web created\n');
    const second = await c.kubectl(['apply', '-f', dir]);
    assert.equal(second, 'configmap/settings unchanged\ndeployment.apps/folder-web unchanged\n');
    await writeFile(join(dir, 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  mode: slow\n');
    assert.equal(await c.kubectl(['apply', '-f', join(dir, 'cm.yaml')]), 'configmap/settings configured\n');
    assert.equal(await c.kubectl(['get', 'configmap', 'settings', '-o', 'jsonpath={.data.mode}']), 'slow');
  });

  test('apply --server-side creates, then reports serverside-applied with managed fields', async () => {
    const cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  k: v\n';
    assert.equal(await c.kubectl(['apply', '--server-side', '-f', '-'], cm), 'configmap/ssa serverside-applied\n');
    assert.equal(await c.kubectl(['apply', '--server-side', '-f', '-'], cm), 'configmap/ssa serverside-applied\n');
    const yaml = await c.kubectl(['get', 'configmap', 'ssa', '-o', 'yaml', '--show-managed-fields']);
    assert.match(yaml, /manager: kubectl\n\s+operation: Apply/);
  });

  test('get prints wide, yaml, json, jsonpath, custom-columns, name, labels', async () => {
    await c.kubectl(['apply', '-f', '-'], 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fmt\n  labels:\n    tier: backend\ndata:\n  a: "1"\n  b: "2"\n');
    assert.equal(await c.kubectl(['get', 'configmap', 'fmt', '-o', 'name']), 'configmap/fmt\n');
    assert.match(await c.kubectl(['get', 'configmap', 'fmt']), /^NAME\s+DATA\s+AGE\nfmt\s+2\s+\d+s\n$/);
    assert.match(await c.kubectl(['get', 'configmap', 'fmt', '--show-labels']), /^NAME\s+DATA\s+AGE\s+LABELS\nfmt\s+2\s+\d+s\s+tier=backend\n$/);
    const obj = JSON.parse(await c.kubectl(['get', 'configmap', 'fmt', '-o', 'json'])) as { kind: string; data: Record<string, string> };
    assert.equal(obj.kind, 'ConfigMap');
    assert.deepEqual(obj.data, { a: '1', b: '2' });
    assert.match(await c.kubectl(['get', 'configmap', 'fmt', '-o', 'yaml']), /^apiVersion: v1\ndata:\n {2}a: "1"\n {2}b: "2"\nkind: ConfigMap\n/);
    assert.equal(await c.kubectl(['get', 'configmap', 'fmt', '-o', 'jsonpath={.metadata.labels.tier}']), 'backend');
    assert.equal(await c.kubectl(['get', 'configmap', '-l', 'tier=backend', '-o', 'custom-columns=NAME:.metadata.name,A:.data.a']), 'NAME   A\nfmt    1\n');
    assert.match(await c.kubectl(['get', 'pods', '-A', '-o', 'wide']), /^NAMESPACE\s+NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES\n/);
    assert.match(await c.kubectl(['get', 'pods', '-n', 'kube-system', '--field-selector', 'spec.nodeName=windows-2019-1', '-o', 'name']), /pod\/kube-proxy-windows-/);
  });

  test('lists and scalars read back as from protobuf storage: a Role\'s empty rules and a CSINode\'s drivers null, empty omitempty lists and zeros gone', async () => {
    assert.equal(
      await c.kubectl(['apply', '-f', '-'], 'apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: nothing\nrules: []\n'),
      'role.rbac.authorization.k8s.io/nothing created\n',
    );
    assert.match(await c.kubectl(['get', 'role', 'nothing', '-o', 'yaml']), /\nrules: null\n$/);
    const csiNode = JSON.parse(await c.kubectl(['get', 'csinode', 'windows-2019-1', '-o', 'json'])) as { spec: unknown };
    assert.deepEqual(csiNode.spec, { drivers: null });
    // As on a real cluster, applying the manifest again sends `rules: []` once more (live has null, so the
    // three-way patch is not empty): kubectl says configured, and the Role still reads null.
    assert.equal(
      await c.kubectl(['apply', '-f', '-'], 'apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: nothing\nrules: []\n'),
      'role.rbac.authorization.k8s.io/nothing configured\n',
    );
    assert.match(await c.kubectl(['get', 'role', 'nothing', '-o', 'yaml']), /\nrules: null\n$/);
    // Empty omitempty lists and omitempty zeros are gone; a pointer keeps its false.
    await c.kubectl(['apply', '-f', '-'], [
      'apiVersion: v1', 'kind: Pod', 'metadata:', '  name: zeros', '  labels: {}', 'spec:', '  hostNetwork: false', '  tolerations: []',
      '  containers:', '  - name: c', '    image: nginx:1.27', '    env: []', '    tty: false', '    securityContext:', '      privileged: false', '',
    ].join('\n'));
    const pod = JSON.parse(await c.kubectl(['get', 'pod', 'zeros', '-o', 'json'])) as { metadata: Record<string, unknown>; spec: Record<string, unknown> & { containers: Record<string, unknown>[] } };
    assert.deepEqual(
      [pod.metadata['labels'], pod.spec['hostNetwork'], pod.spec.containers[0]?.['env'], pod.spec.containers[0]?.['tty'], pod.spec.containers[0]?.['securityContext']],
      [undefined, undefined, undefined, undefined, { privileged: false }],
    );
    await c.kubectl(['delete', 'pod', 'zeros', '--wait=false']);
  });

  test('get -w streams changes as they happen', async () => {
    const out = await c.kubectlFor(['get', 'configmaps', '-w'], 1500, async () => {
      await c.kubectl(['apply', '-f', '-'], 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: watched\n');
    });
    assert.match(out, /^NAME\s+DATA\s+AGE\n/);
    assert.match(out, /\nwatched\s+0\s+\d+s\n/);
  });

  test('label, annotate and the three kinds of patch', async () => {
    await c.kubectl(['apply', '-f', '-'], 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: p\ndata:\n  a: "1"\n');
    assert.equal(await c.kubectl(['label', 'configmap', 'p', 'team=blue']), 'configmap/p labeled\n');
    assert.equal(await c.kubectl(['annotate', 'configmap', 'p', 'note=hello']), 'configmap/p annotated\n');
    assert.equal(await c.kubectl(['patch', 'configmap', 'p', '-p', '{"data":{"b":"2"}}']), 'configmap/p patched\n');
    assert.equal(await c.kubectl(['patch', 'configmap', 'p', '--type=merge', '-p', '{"data":{"a":null}}']), 'configmap/p patched\n');
    assert.equal(await c.kubectl(['patch', 'configmap', 'p', '--type=json', '-p', '[{"op":"add","path":"/data/c","value":"3"}]']), 'configmap/p patched\n');
    assert.equal(await c.kubectl(['patch', 'configmap', 'p', '-p', '{"data":{"c":"3"}}']), 'configmap/p patched (no change)\n');
    const got = JSON.parse(await c.kubectl(['get', 'configmap', 'p', '-o', 'json'])) as { data: Record<string, string>; metadata: { labels: Record<string, string>; annotations: Record<string, string> } };
    assert.deepEqual(got.data, { b: '2', c: '3' });
    assert.equal(got.metadata.labels['team'], 'blue');
    assert.equal(got.metadata.annotations['note'], 'hello');
    const bad = await c.kubectlResult(['patch', 'configmap', 'p', '--type=json', '-p', '[{"op":"test","path":"/data/b","value":"9"}]']);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /The request is invalid|testing value|Invalid/);
  });

  test('edit with an editor script', async () => {
    await c.kubectl(['apply', '-f', '-'], 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: edited\ndata:\n  color: red\n');
    const editor = join(c.dataDir, 'editor.sh');
    await writeFile(editor, '#!/bin/sh\nsed -i "s/color: red/color: green/" "$1"\n');
    await chmod(editor, 0o755);
    const res = await runKubectl(['edit', 'configmap', 'edited'], { kubeconfig: c.kubeconfig, env: { KUBE_EDITOR: editor } });
    assert.equal(res.stdout, 'configmap/edited edited\n');
    assert.equal(await c.kubectl(['get', 'configmap', 'edited', '-o', 'jsonpath={.data.color}']), 'green');
  });

  test('a Deployment scales, rolls out, shows history and rolls back', async () => {
    await c.kubectl(['apply', '-f', '-'], deployment('web', 'nginx:1.26'));
    assert.match(await c.kubectl(['rollout', 'status', 'deployment/web', '--timeout=60s']), /deployment "web" successfully rolled out/);
    assert.equal(await c.kubectl(['wait', '--for=condition=Available', 'deployment/web', '--timeout=30s']), 'deployment.apps/web condition met\n');
    assert.equal(await c.kubectl(['scale', 'deployment', 'web', '--replicas=3']), 'deployment.apps/web scaled\n');
    await c.eventually('3 ready replicas', async () => ((await c.kubectl(['get', 'deployment', 'web', '-o', 'jsonpath={.status.readyReplicas}'])) === '3' ? true : undefined), 40_000);
    assert.match(await c.kubectl(['get', 'deployment', 'web']), /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\nweb\s+3\/3\s+3\s+3\s+\d+s\n$/);
    await c.kubectl(['set', 'image', 'deployment/web', 'main=nginx:1.27']);
    assert.match(await c.kubectl(['rollout', 'status', 'deployment/web', '--timeout=60s']), /deployment "web" successfully rolled out/);
    const history = await c.kubectl(['rollout', 'history', 'deployment/web']);
    assert.match(history, /^deployment\.apps\/web \nREVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>\n/);
    assert.equal(await c.kubectl(['rollout', 'undo', 'deployment/web']), 'deployment.apps/web rolled back\n');
    assert.match(await c.kubectl(['rollout', 'status', 'deployment/web', '--timeout=60s']), /successfully rolled out/);
    assert.equal(await c.kubectl(['get', 'deployment', 'web', '-o', 'jsonpath={.spec.template.spec.containers[0].image}']), 'nginx:1.26');
    const rs = await c.kubectl(['get', 'rs', '-l', 'app=web']);
    assert.match(rs, /^NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE\n/);
  });

  test('a new Deployment stays at generation 1 (the revision annotation comes with status); kubectl annotate moves it to 2', async () => {
    assert.equal(await c.kubectl(['create', 'deployment', 'gen', '--image=nginx']), 'deployment.apps/gen created\n');
    assert.match(await c.kubectl(['rollout', 'status', 'deployment/gen', '--timeout=60s']), /deployment "gen" successfully rolled out/);
    const jsonpath = `jsonpath={.metadata.generation} {.status.observedGeneration} {.metadata.annotations.deployment\\.kubernetes\\.io/revision}`;
    assert.equal(await c.kubectl(['get', 'deploy', 'gen', '-o', jsonpath]), '1 1 1');
    assert.equal(await c.kubectl(['annotate', 'deploy', 'gen', 'a=b']), 'deployment.apps/gen annotated\n');
    await c.eventually('observedGeneration 2', async () => ((await c.kubectl(['get', 'deploy', 'gen', '-o', jsonpath])) === '2 2 1' ? true : undefined), 30_000);
    await c.kubectl(['delete', 'deployment', 'gen']);
  });

  test('a ReplicationController keeps its replicas, scales, and its pods go with it', async () => {
    const rc = `apiVersion: v1
kind: ReplicationController
metadata:
  name: legacy
spec:
  replicas: 2
  template:
    metadata:
      labels:
        app: legacy
    spec:
      nodeSelector:
        kubernetes.io/os: linux
      containers:
      - name: main
        image: nginx:1.27
`;
    assert.equal(await c.kubectl(['apply', '-f', '-'], rc), 'replicationcontroller/legacy created\n');
    // Defaulted from the template: the selector and the labels.
    assert.equal(await c.kubectl(['get', 'rc', 'legacy', '-o', 'jsonpath={.spec.selector.app} {.metadata.labels.app} {.metadata.generation}']), 'legacy legacy 1');
    await c.eventually('2 ready', async () => ((await c.kubectl(['get', 'rc', 'legacy', '-o', 'jsonpath={.status.readyReplicas}'])) === '2' ? true : undefined), 40_000);
    assert.match(await c.kubectl(['get', 'rc', 'legacy']), /^NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE\nlegacy\s+2\s+2\s+2\s+\d+s\n$/);
    const owner = await c.kubectl(['get', 'pods', '-l', 'app=legacy', '-o', 'jsonpath={.items[0].metadata.ownerReferences[0].kind}/{.items[0].metadata.ownerReferences[0].apiVersion}']);
    assert.equal(owner, 'ReplicationController/v1');
    assert.match(await c.kubectl(['describe', 'rc', 'legacy']), /SuccessfulCreate\s+\S+\s+replication-controller\s+Created pod: legacy-/);
    assert.equal(await c.kubectl(['scale', 'rc', 'legacy', '--replicas=3']), 'replicationcontroller/legacy scaled\n');
    const scale = JSON.parse(await c.kubectl(['get', '--raw', '/api/v1/namespaces/default/replicationcontrollers/legacy/scale'])) as { status: { selector: string } };
    assert.equal(scale.status.selector, 'app=legacy');
    await c.eventually('3 pods', async () => ((await c.kubectl(['get', 'pods', '-l', 'app=legacy', '-o', 'name'])).trim().split('\n').length === 3 ? true : undefined), 40_000);
    assert.equal(await c.kubectl(['get', 'rc', 'legacy', '-o', 'jsonpath={.spec.replicas}']), '3');
    assert.equal(await c.kubectl(['delete', 'rc', 'legacy', '--wait=true']), 'replicationcontroller "legacy" deleted\n');
    await c.eventually('pods gone', async () => ((await c.kubectl(['get', 'pods', '-l', 'app=legacy', '-o', 'name'])) === '' ? true : undefined), 40_000);
    const bad = await c.kubectlResult(['apply', '-f', '-'], 'apiVersion: v1\nkind: ReplicationController\nmetadata:\n  name: bad\nspec:\n  selector:\n    app: x\n  template:\n    metadata:\n      labels:\n        app: other\n    spec:\n      containers:\n      - name: main\n        image: nginx\n');
    assert.match(bad.stderr, /spec\.template\.metadata\.labels: Invalid value: map\[string\]string\{"app":"other"\}: `selector` does not match template `labels`/);
  });

  test('delete cascades to ReplicaSets and pods, and --wait waits for them', async () => {
    await c.kubectl(['apply', '-f', '-'], deployment('doomed', 'nginx'));
    await c.kubectl(['rollout', 'status', 'deployment/doomed', '--timeout=60s']);
    assert.equal(await c.kubectl(['delete', 'deployment', 'doomed', '--wait=true']), 'deployment.apps "doomed" deleted\n');
    await c.eventually('pods gone', async () => ((await c.kubectl(['get', 'pods', '-l', 'app=doomed', '-o', 'name'])) === '' ? true : undefined), 40_000);
    assert.equal(await c.kubectl(['get', 'rs', '-l', 'app=doomed', '-o', 'name']), '');
  });

  test('describe shows the pod\'s node, events and tolerations', async () => {
    await c.kubectl(['apply', '-f', '-'], deployment('described', 'nginx', 1));
    await c.kubectl(['rollout', 'status', 'deployment/described', '--timeout=60s']);
    const out = await c.kubectl(['describe', 'pod', '-l', 'app=described']);
    assert.match(out, /^Name:\s+described-/m);
    assert.match(out, /^Node:\s+linux-(amd64|arm64)-\d\/127\.0\.1\.\d+$/m);
    assert.match(out, /^Status:\s+Running$/m);
    assert.match(out, /Normal\s+Scheduled\s+\S+\s+default-scheduler\s+Successfully assigned default\/described-\S+ to linux-/);
    assert.match(out, /Normal\s+Started\s+\S+\s+kubelet\s+Started container main/);
  });

  test('explain, api-resources and version', async () => {
    const explain = await c.kubectl(['explain', 'pod.spec.tolerations']);
    assert.match(explain, /FIELD: tolerations <\[\]Toleration>/);
    const ar = await c.kubectl(['api-resources']);
    assert.match(ar, /\ndeployments\s+deploy\s+apps\/v1\s+true\s+Deployment\n/);
    assert.match(ar, /\nruntimeclasses\s+node\.k8s\.io\/v1\s+false\s+RuntimeClass\n/);
    const v = await c.kubectl(['version', '-o', 'json']);
    assert.match((JSON.parse(v) as { serverVersion: { gitVersion: string } }).serverVersion.gitVersion, /^v1\.32\.\d+$/);
  });

  test('api-resources lists what a 1.32 server serves', async () => {
    // `kubectl api-resources -o name` of a kube-apiserver 1.32 with no aggregated APIs.
    const real = [
      'apiservices.apiregistration.k8s.io', 'bindings', 'certificatesigningrequests.certificates.k8s.io', 'clusterrolebindings.rbac.authorization.k8s.io',
      'clusterroles.rbac.authorization.k8s.io', 'componentstatuses', 'configmaps', 'controllerrevisions.apps', 'cronjobs.batch', 'csidrivers.storage.k8s.io',
      'csinodes.storage.k8s.io', 'csistoragecapacities.storage.k8s.io', 'customresourcedefinitions.apiextensions.k8s.io', 'daemonsets.apps', 'deployments.apps',
      'endpoints', 'endpointslices.discovery.k8s.io', 'events', 'events.events.k8s.io', 'flowschemas.flowcontrol.apiserver.k8s.io',
      'horizontalpodautoscalers.autoscaling', 'ingressclasses.networking.k8s.io', 'ingresses.networking.k8s.io', 'jobs.batch', 'leases.coordination.k8s.io',
      'limitranges', 'localsubjectaccessreviews.authorization.k8s.io', 'mutatingwebhookconfigurations.admissionregistration.k8s.io', 'namespaces',
      'networkpolicies.networking.k8s.io', 'nodes', 'persistentvolumeclaims', 'persistentvolumes', 'poddisruptionbudgets.policy', 'pods', 'podtemplates',
      'priorityclasses.scheduling.k8s.io', 'prioritylevelconfigurations.flowcontrol.apiserver.k8s.io', 'replicasets.apps', 'replicationcontrollers', 'resourcequotas',
      'rolebindings.rbac.authorization.k8s.io', 'roles.rbac.authorization.k8s.io', 'runtimeclasses.node.k8s.io', 'secrets',
      'selfsubjectaccessreviews.authorization.k8s.io', 'selfsubjectreviews.authentication.k8s.io', 'selfsubjectrulesreviews.authorization.k8s.io',
      'serviceaccounts', 'services', 'statefulsets.apps', 'storageclasses.storage.k8s.io', 'subjectaccessreviews.authorization.k8s.io',
      'tokenreviews.authentication.k8s.io', 'validatingadmissionpolicies.admissionregistration.k8s.io',
      'validatingadmissionpolicybindings.admissionregistration.k8s.io', 'validatingwebhookconfigurations.admissionregistration.k8s.io',
      'volumeattachments.storage.k8s.io',
    ];
    const ours = (await c.kubectl(['api-resources', '-o', 'name'])).trim().split('\n').sort();
    assert.deepEqual(ours, real);
  });

  test('componentstatuses are computed, with the deprecation warning', async () => {
    const r = await c.kubectlResult(['get', 'componentstatuses']);
    assert.equal(r.stderr, 'Warning: v1 ComponentStatus is deprecated in v1.19+\n');
    assert.match(r.stdout, /^NAME\s+STATUS\s+MESSAGE\s+ERROR\n/);
    assert.match(r.stdout, /\nscheduler\s+Healthy\s+ok\s*\n/);
    assert.match(r.stdout, /\ncontroller-manager\s+Healthy\s+ok\s*\n/);
    assert.match(r.stdout, /\netcd-0\s+Healthy\s+ok\s*\n/);
    const missing = await c.kubectlResult(['get', 'cs', 'nope']);
    assert.equal(missing.stderr, 'Warning: v1 ComponentStatus is deprecated in v1.19+\nError from server: Component not found: nope\n');
  });

  test('a Binding created through /bindings binds its pod', async () => {
    const pod = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: bind-me\nspec:\n  schedulerName: nobody\n  containers:\n  - name: main\n    image: nginx:1.27\n';
    await c.kubectl(['apply', '-f', '-'], pod);
    const node = (await c.kubectl(['get', 'nodes', '-l', 'kubernetes.io/os=linux', '-o', 'jsonpath={.items[0].metadata.name}'])).trim();
    const binding = `apiVersion: v1\nkind: Binding\nmetadata:\n  name: bind-me\ntarget:\n  apiVersion: v1\n  kind: Node\n  name: ${node}\n`;
    await c.kubectl(['create', '-f', '-'], binding);
    assert.equal(await c.kubectl(['get', 'pod', 'bind-me', '-o', 'jsonpath={.spec.nodeName}']), node);
    const again = await c.kubectlResult(['create', '-f', '-'], binding);
    assert.equal(again.stderr, `Error from server (Conflict): error when creating "STDIN": Operation cannot be fulfilled on pods/binding "bind-me": pod bind-me is already assigned to node "${node}"\n`);
  });

  test('a TokenReview authenticates the token it carries', async () => {
    const review = (token: string): string => `apiVersion: authentication.k8s.io/v1\nkind: TokenReview\nspec:\n  token: ${token}\n`;
    const unknown = JSON.parse(await c.kubectl(['create', '-f', '-', '-o', 'json'], review('not-a-token'))) as { status: unknown };
    assert.deepEqual(unknown.status, { user: {}, error: 'invalid bearer token' });
  });

  test('errors read as on a real cluster', async () => {
    const nf = await c.kubectlResult(['get', 'pod', 'nope']);
    assert.equal(nf.stderr, 'Error from server (NotFound): pods "nope" not found\n');
    const nsnf = await c.kubectlResult(['get', 'pods', '-n', 'nosuchns']);
    assert.equal(nsnf.stdout + nsnf.stderr, 'No resources found in nosuchns namespace.\n');
  });

  test('a value of the wrong JSON type fails decoding, as encoding/json reports it', async () => {
    const svc = 'apiVersion: v1\nkind: Service\nmetadata:\n  name: typed\nspec:\n  selector:\n    enabled: true\n  ports:\n  - port: 80\n';
    const r1 = await c.kubectlResult(['apply', '-f', '-'], svc);
    assert.equal(r1.stderr, 'Error from server (BadRequest): error when creating "STDIN": Service in version "v1" cannot be handled as a Service: json: cannot unmarshal bool into Go struct field ServiceSpec.spec.selector of type string\n');
    const cm = deployment('typed', 'nginx').replace('replicas: 2', 'replicas: "2"');
    const r2 = await c.kubectlResult(['apply', '-f', '-'], cm);
    assert.equal(r2.stderr, 'Error from server (BadRequest): error when creating "STDIN": Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32\n');
    const port = deployment('typed', 'nginx').replace('        image: nginx\n', '        image: nginx\n        ports:\n        - containerPort: 80.5\n');
    const r3 = await c.kubectlResult(['apply', '-f', '-'], port);
    assert.equal(r3.stderr, 'Error from server (BadRequest): error when creating "STDIN": Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number 80.5 into Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32\n');
  });

  test('create, run and expose send protobuf bodies that the server decodes', async () => {
    assert.equal(await c.kubectl(['create', 'deployment', 'made', '--image=nginx', '--replicas=1']), 'deployment.apps/made created\n');
    assert.equal(await c.kubectl(['create', 'configmap', 'made', '--from-literal=a=b']), 'configmap/made created\n');
    assert.equal(await c.kubectl(['create', 'secret', 'generic', 'made', '--from-literal=k=v']), 'secret/made created\n');
    assert.equal(await c.kubectl(['get', 'secret', 'made', '-o', 'jsonpath={.data.k}']), Buffer.from('v').toString('base64'));
    assert.equal(await c.kubectl(['expose', 'deployment', 'made', '--port=80']), 'service/made exposed\n');
    assert.equal(await c.kubectl(['run', 'solo', '--image=busybox']), 'pod/solo created\n');
    assert.equal(await c.kubectl(['create', 'namespace', 'team-a']), 'namespace/team-a created\n');
  });

  test('auth can-i answers yes for the admin', async () => {
    assert.equal(await c.kubectl(['auth', 'can-i', 'create', 'pods']), 'yes\n');
    assert.equal(await c.kubectl(['auth', 'can-i', '*', '*', '--all-namespaces']), 'yes\n');
    assert.match(await c.kubectl(['auth', 'whoami']), /^ATTRIBUTE\s+VALUE\nUsername\s+kubernetes-admin\nGroups\s+\[system:masters system:authenticated\]\n$/);
  });

  test('deleting a namespace empties it (RBAC objects included) and then it is gone', async () => {
    await c.kubectl(['create', 'namespace', 'short-lived']);
    await c.kubectl(['create', 'role', 'reader', '--verb=get', '--resource=pods', '-n', 'short-lived']);
    await c.kubectl(['create', 'configmap', 'cfg', '--from-literal=a=b', '-n', 'short-lived']);
    assert.equal(await c.kubectl(['delete', 'namespace', 'short-lived', '--timeout=60s']), 'namespace "short-lived" deleted\n');
    const gone = await c.kubectlResult(['get', 'namespace', 'short-lived']);
    assert.equal(gone.stderr, 'Error from server (NotFound): namespaces "short-lived" not found\n');
  });
});
