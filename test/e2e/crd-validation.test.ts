/**
 * The real kubectl v1.32 applying CustomResourceDefinitions a real kube-apiserver refuses: the 422 comes
 * back with apiextensions-apiserver's field errors, and kubectl prints them as it would against a cluster.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer, type TestApiServer } from '../harness/api-server.js';
import { runKubectl } from '../tools/kubectl-tools.js';

const gadgets = (group: string, versions: string): string => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: ${group}
  scope: Namespaced
  names:
    plural: gadgets
    kind: Gadget
  versions:
${versions}`;

const version = (name: string, storage: boolean, schema = '    schema:\n      openAPIV3Schema:\n        type: object\n'): string =>
  `  - name: ${name}\n    served: true\n    storage: ${storage}\n${schema}`;

describe('kubectl apply of invalid CRDs', () => {
  let srv: TestApiServer;
  const apply = (manifest: string): ReturnType<typeof runKubectl> => runKubectl(['apply', '-f', '-'], { kubeconfig: srv.kubeconfig, input: manifest });

  before(async () => {
    srv = await startTestApiServer();
  });
  after(async () => {
    await srv.stop();
  });

  test('a name that is not <plural>.<group>', async () => {
    const r = await apply(gadgets('other.com', version('v1', true)));
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      'The CustomResourceDefinition "gadgets.example.com" is invalid: metadata.name: Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group\n',
    );
  });

  test('no schema, and a root schema without a type', async () => {
    const r = await apply(gadgets('example.com', version('v1', true, '') + version('v2', false, '    schema:\n      openAPIV3Schema:\n        description: no type\n')));
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      'The CustomResourceDefinition "gadgets.example.com" is invalid: \n' +
        '* spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required\n' +
        '* spec.versions[1].schema.openAPIV3Schema.type: Required value: must not be empty at the root\n',
    );
  });

  test('two storage versions: the identical schemas move to the top level, so the versions print without them', async () => {
    const r = await apply(gadgets('example.com', version('v1', true) + version('v2', true)));
    assert.equal(r.code, 1);
    const v = (name: string): string =>
      `apiextensions.CustomResourceDefinitionVersion{Name:"${name}", Served:true, Storage:true, Deprecated:false, DeprecationWarning:(*string)(nil), Schema:(*apiextensions.CustomResourceValidation)(nil), Subresources:(*apiextensions.CustomResourceSubresources)(nil), AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition(nil), SelectableFields:[]apiextensions.SelectableField(nil)}`;
    assert.equal(
      r.stderr,
      'The CustomResourceDefinition "gadgets.example.com" is invalid: \n' +
        `* spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{${v('v1')}, ${v('v2')}}: must have exactly one version marked as storage version\n` +
        '* status.storedVersions: Invalid value: []string{"v1"}: must have the storage version v2\n',
    );
  });

  test('a valid CRD is created with defaulted names and conversion, and its group is immutable', async () => {
    const r = await apply(gadgets('example.com', version('v1', true)));
    assert.equal(r.stderr, '');
    assert.equal(r.stdout, 'customresourcedefinition.apiextensions.k8s.io/gadgets.example.com created\n');
    const got = await runKubectl(['get', 'crd', 'gadgets.example.com', '-o', 'jsonpath={.spec.names.singular} {.spec.names.listKind} {.spec.conversion.strategy} {.status.storedVersions}'], { kubeconfig: srv.kubeconfig });
    assert.equal(got.stdout, 'gadget GadgetList None ["v1"]');
    const u = await runKubectl(['patch', 'crd', 'gadgets.example.com', '--type=merge', '-p', '{"spec":{"group":"other.com"}}'], { kubeconfig: srv.kubeconfig });
    assert.equal(
      u.stderr,
      'The CustomResourceDefinition "gadgets.example.com" is invalid: spec.group: Invalid value: "other.com": field is immutable\n',
    );
  });
});
