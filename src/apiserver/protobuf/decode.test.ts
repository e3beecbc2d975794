/**
 * The decoder against byte sequences written by hand from the protobuf encoding spec and the field
 * numbers of upstream's generated.proto (not produced by the test encoder).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ProtobufDecodeError, ProtobufDecoder, decodeErrorMessage, decodeProtobufObject, formatGoDuration, isProtobufContentType } from './decode.js';

function varint(n: number): number[] {
  const out: number[] = [];
  let x = BigInt.asUintN(64, BigInt(n));
  while (x >= 0x80n) {
    out.push(Number(x & 0x7fn) | 0x80);
    x >>= 7n;
  }
  out.push(Number(x));
  return out;
}
/** field with wire type 0 */
const vi = (field: number, n: number): number[] => [...varint(field * 8), ...varint(n)];
/** field with wire type 2 */
const ld = (field: number, payload: readonly number[]): number[] => [...varint(field * 8 + 2), ...varint(payload.length), ...payload];
const str = (field: number, s: string): number[] => ld(field, [...Buffer.from(s, 'utf8')]);
const K8S = [0x6b, 0x38, 0x73, 0x00];
const envelope = (apiVersion: string, kind: string, raw: readonly number[]): Uint8Array =>
  Uint8Array.from([...K8S, ...ld(1, [...str(1, apiVersion), ...str(2, kind)]), ...ld(2, raw)]);
const get = (o: unknown, ...path: string[]): unknown => path.reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], o);

describe('isProtobufContentType', () => {
  const cases: [string, boolean][] = [
    ['application/vnd.kubernetes.protobuf', true],
    ['application/vnd.kubernetes.protobuf; charset=binary', true],
    ['Application/VND.Kubernetes.Protobuf', true],
    ['application/vnd.kubernetes.protobuf;stream=watch', true],
    ['application/json', false],
    ['application/vnd.kubernetes.protobuf+json', false],
    ['', false],
  ];
  for (const [ct, want] of cases) test(JSON.stringify(ct), () => assert.equal(isProtobufContentType(ct), want));
});

describe('decodeProtobufObject', () => {
  test('a ConfigMap envelope written byte by byte', () => {
    // k8s\0, runtime.Unknown{typeMeta{apiVersion "v1", kind "ConfigMap"}, raw ConfigMap{metadata{name "x", namespace "default"}, data{a: b}}}
    const body = Uint8Array.from([
      0x6b, 0x38, 0x73, 0x00,
      0x0a, 0x0f, 0x0a, 0x02, 0x76, 0x31, 0x12, 0x09, 0x43, 0x6f, 0x6e, 0x66, 0x69, 0x67, 0x4d, 0x61, 0x70,
      0x12, 0x16,
      0x0a, 0x0c, 0x0a, 0x01, 0x78, 0x1a, 0x07, 0x64, 0x65, 0x66, 0x61, 0x75, 0x6c, 0x74,
      0x12, 0x06, 0x0a, 0x01, 0x61, 0x12, 0x01, 0x62,
    ]);
    assert.deepEqual(decodeProtobufObject(body), {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'x', namespace: 'default', creationTimestamp: null }, data: { a: 'b' } },
    });
  });

  test('ObjectMeta as gogo writes it: empty non-pointer fields are on the wire but omitempty drops them', () => {
    // name "x", generateName "", namespace "", selfLink "", uid "", resourceVersion "", generation 0, creationTimestamp {}
    const meta = [0x0a, 0x01, 0x78, 0x12, 0x00, 0x1a, 0x00, 0x22, 0x00, 0x2a, 0x00, 0x32, 0x00, 0x38, 0x00, 0x42, 0x00];
    const { object } = decodeProtobufObject(envelope('v1', 'ServiceAccount', ld(1, meta)));
    assert.deepEqual(object, { kind: 'ServiceAccount', apiVersion: 'v1', metadata: { name: 'x', creationTimestamp: null } });
  });

  test('explicit zeros survive in pointer fields and vanish in omitempty value fields', () => {
    // DeploymentSpec: replicas (*int32) 0, minReadySeconds (int32, omitempty) 0, paused (bool, omitempty) false, revisionHistoryLimit 10
    const spec = [...vi(1, 0), ...vi(5, 0), ...vi(7, 0), ...vi(6, 10)];
    const { object } = decodeProtobufObject(envelope('apps/v1', 'Deployment', [...ld(1, str(1, 'd')), ...ld(2, spec)]));
    assert.deepEqual(object, {
      kind: 'Deployment',
      apiVersion: 'apps/v1',
      metadata: { name: 'd', creationTimestamp: null },
      spec: {
        replicas: 0,
        // *LabelSelector without omitempty: null, as json.Marshal writes it
        selector: null,
        template: { metadata: { creationTimestamp: null }, spec: { containers: null } },
        strategy: {},
        revisionHistoryLimit: 10,
      },
      status: {},
    });
  });

  test('bytes become base64, map<string, bytes> too', () => {
    const entry = [...str(1, 'k'), ...ld(2, [1, 2, 3])];
    const empty = [...str(1, 'e'), ...ld(2, [])];
    const raw = [...ld(1, str(1, 's')), ...ld(2, entry), ...ld(2, empty), ...str(3, 'Opaque'), ...vi(5, 1)];
    const { object } = decodeProtobufObject(envelope('v1', 'Secret', raw));
    assert.deepEqual(object, {
      kind: 'Secret',
      apiVersion: 'v1',
      metadata: { name: 's', creationTimestamp: null },
      immutable: true,
      data: { e: '', k: 'AQID' },
      type: 'Opaque',
    });
  });

  test('metav1.Time is RFC 3339 in seconds; the empty message is the zero time, JSON null', () => {
    // creationTimestamp 1700000000s + 5ns (nanoseconds are not in the JSON form), deletionTimestamp the Unix epoch written explicitly
    const meta = [...str(1, 'p'), ...ld(8, [...vi(1, 1700000000), ...vi(2, 5)]), ...ld(9, [...vi(1, 0), ...vi(2, 0)]), ...vi(10, 30)];
    const { object } = decodeProtobufObject(envelope('v1', 'Namespace', ld(1, meta)));
    assert.deepEqual(object['metadata'], {
      name: 'p',
      creationTimestamp: '2023-11-14T22:13:20Z',
      deletionTimestamp: '1970-01-01T00:00:00Z',
      deletionGracePeriodSeconds: 30,
    });
  });

  test('metav1.MicroTime keeps six fractional digits', () => {
    // LeaseSpec: holderIdentity "me", acquireTime {} (set, zero), renewTime 1700000000.123456789, leaseDurationSeconds 15
    const spec = [...str(1, 'me'), ...vi(2, 15), ...ld(3, []), ...ld(4, [...vi(1, 1700000000), ...vi(2, 123456789)])];
    const { object } = decodeProtobufObject(envelope('coordination.k8s.io/v1', 'Lease', [...ld(1, str(1, 'l')), ...ld(2, spec)]));
    assert.deepEqual(object['spec'], { holderIdentity: 'me', leaseDurationSeconds: 15, acquireTime: null, renewTime: '2023-11-14T22:13:20.123456Z' });
  });

  test('IntOrString is a number or a string; Quantity is its string', () => {
    const portInt = [...str(1, 'http'), ...str(2, 'TCP'), ...vi(3, 80), ...ld(4, [...vi(1, 0), ...vi(2, 8080), ...str(3, '')])];
    const portStr = [...vi(3, 443), ...ld(4, [...vi(1, 1), ...vi(2, 0), ...str(3, 'https')])];
    const portZero = [...vi(3, 53), ...ld(4, [])];
    const svc = decodeProtobufObject(envelope('v1', 'Service', ld(2, [...ld(1, portInt), ...ld(1, portStr), ...ld(1, portZero)]))).object;
    assert.deepEqual(get(svc, 'spec', 'ports'), [
      { name: 'http', protocol: 'TCP', port: 80, targetPort: 8080 },
      { port: 443, targetPort: 'https' },
      { port: 53, targetPort: 0 },
    ]);
    const hard = [...ld(1, [...str(1, 'cpu'), ...ld(2, str(1, '500m'))]), ...ld(1, [...str(1, 'pods'), ...ld(2, str(1, '10'))])];
    const quota = decodeProtobufObject(envelope('v1', 'ResourceQuota', ld(2, hard))).object;
    assert.deepEqual(get(quota, 'spec'), { hard: { cpu: '500m', pods: '10' } });
  });

  test('repeated scalars decode packed and unpacked; negative int32 is a ten-byte varint', () => {
    const unpacked = [...vi(4, 1000), ...vi(4, 2000)];
    const packed = ld(4, [...varint(1000), ...varint(2000)]);
    for (const sc of [unpacked, packed]) {
      const podSpec = [...ld(14, sc), ...vi(25, -5)];
      const pod = decodeProtobufObject(envelope('v1', 'Pod', ld(2, podSpec))).object;
      assert.deepEqual(get(pod, 'spec', 'securityContext'), { supplementalGroups: [1000, 2000] });
      assert.equal(get(pod, 'spec', 'priority'), -5);
      assert.equal(get(pod, 'spec', 'containers'), null);
    }
  });

  test('fields that Go embeds with json ",inline" merge into their parent', () => {
    // Volume{name, volumeSource{secret{secretName}}}; EnvVar.valueFrom.secretKeyRef{localObjectReference{name}, key};
    // Probe{handler{httpGet{path, port}}, periodSeconds}
    const volume = [...str(1, 'certs'), ...ld(2, ld(6, str(1, 'tls')))];
    const env = [...str(1, 'PW'), ...ld(3, ld(4, [...ld(1, str(1, 'db')), ...str(2, 'password')]))];
    const probe = [...ld(1, ld(2, [...str(1, '/healthz'), ...ld(2, [...vi(1, 0), ...vi(2, 8080)])])), ...vi(4, 10)];
    const container = [...str(1, 'app'), ...ld(7, env), ...ld(10, probe)];
    const pod = decodeProtobufObject(envelope('v1', 'Pod', ld(2, [...ld(1, volume), ...ld(2, container)]))).object;
    assert.deepEqual(get(pod, 'spec', 'volumes'), [{ name: 'certs', secret: { secretName: 'tls' } }]);
    assert.deepEqual(get(pod, 'spec', 'containers'), [
      {
        name: 'app',
        env: [{ name: 'PW', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } }],
        resources: {},
        livenessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 10 },
      },
    ]);
  });

  test('unknown fields are skipped and a repeated embedded message is merged', () => {
    const raw = [...ld(1, str(1, 'x')), ...vi(99, 7), ...ld(98, [1, 2]), ...ld(1, str(3, 'ns')), ...ld(2, [...str(1, 'a'), ...str(2, 'b')])];
    const { object } = decodeProtobufObject(envelope('v1', 'ConfigMap', raw));
    assert.deepEqual(object['metadata'], { name: 'x', namespace: 'ns', creationTimestamp: null });
    assert.deepEqual(object['data'], { a: 'b' });
  });

  test('managedFields carry FieldsV1 as the JSON it holds', () => {
    const fields = '{"f:data":{"f:a":{}}}';
    const entry = [...str(1, 'kubectl'), ...str(2, 'Update'), ...str(3, 'v1'), ...ld(4, vi(1, 1700000000)), ...str(6, 'FieldsV1'), ...ld(7, str(1, fields))];
    const { object } = decodeProtobufObject(envelope('v1', 'ConfigMap', ld(1, [...str(1, 'x'), ...ld(17, entry)])));
    assert.deepEqual(get(object, 'metadata', 'managedFields'), [
      { manager: 'kubectl', operation: 'Update', apiVersion: 'v1', time: '2023-11-14T22:13:20Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } },
    ]);
  });

  test('RawExtension holds JSON, or a nested protobuf envelope', () => {
    const json = decodeProtobufObject(envelope('apps/v1', 'ControllerRevision', [...ld(1, str(1, 'r')), ...ld(2, str(1, '{"spec":{"x":1}}')), ...vi(3, 2)])).object;
    assert.deepEqual(json['data'], { spec: { x: 1 } });
    assert.equal(json['revision'], 2);
    const inner = [...envelope('v1', 'ConfigMap', ld(1, str(1, 'in')))];
    const nested = decodeProtobufObject(envelope('apps/v1', 'ControllerRevision', [...ld(2, ld(1, inner)), ...vi(3, 1)])).object;
    assert.deepEqual(nested['data'], { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'in', creationTimestamp: null } });
    assert.throws(() => decodeProtobufObject(envelope('apps/v1', 'ControllerRevision', ld(2, str(1, 'not json')))), /RawExtension does not hold JSON/);
  });

  test('map<string, ExtraValue> holds arrays (Go named slices)', () => {
    const extra = [...str(1, 'scopes'), ...ld(2, [...str(1, 'a'), ...str(1, 'b')])];
    const spec = [...str(3, 'alice'), ...str(4, 'devs'), ...ld(5, extra), ...ld(2, [...str(1, '/metrics'), ...str(2, 'get')])];
    const { object } = decodeProtobufObject(envelope('authorization.k8s.io/v1', 'SubjectAccessReview', ld(2, spec)));
    assert.deepEqual(object['spec'], { nonResourceAttributes: { path: '/metrics', verb: 'get' }, user: 'alice', groups: ['devs'], extra: { scopes: ['a', 'b'] } });
    assert.deepEqual(object['status'], { allowed: false });
  });

  test('DeleteOptions decode under meta.k8s.io/v1, v1 and any group version', () => {
    const raw = [...vi(1, 0), ...ld(2, str(1, 'uid-1')), ...str(4, 'Foreground'), ...str(5, 'All')];
    const want = { gracePeriodSeconds: 0, preconditions: { uid: 'uid-1' }, propagationPolicy: 'Foreground', dryRun: ['All'] };
    for (const apiVersion of ['meta.k8s.io/v1', 'v1', 'apps/v1', 'batch/v1']) {
      assert.deepEqual(decodeProtobufObject(envelope(apiVersion, 'DeleteOptions', raw)).object, { kind: 'DeleteOptions', apiVersion, ...want });
    }
  });

  test('an Eviction carries its DeleteOptions', () => {
    const raw = [...ld(1, [...str(1, 'web-0'), ...str(3, 'default')]), ...ld(2, vi(1, 30))];
    assert.deepEqual(decodeProtobufObject(envelope('policy/v1', 'Eviction', raw)).object, {
      kind: 'Eviction',
      apiVersion: 'policy/v1',
      metadata: { name: 'web-0', namespace: 'default', creationTimestamp: null },
      deleteOptions: { gracePeriodSeconds: 30 },
    });
  });

  test('the envelope may leave kind and version to the caller (copyKindDefaults)', () => {
    const body = Uint8Array.from([...K8S, ...ld(1, []), ...ld(2, ld(1, str(1, 'x')))]);
    const got = decodeProtobufObject(body, { apiVersion: 'v1', kind: 'ConfigMap' });
    assert.equal(got.kind, 'ConfigMap');
    assert.equal(got.apiVersion, 'v1');
    assert.deepEqual(got.object['metadata'], { name: 'x', creationTimestamp: null });
  });

  describe('malformed bodies', () => {
    const cases: { name: string; body: Uint8Array; error: string | RegExp }[] = [
      { name: 'empty data', body: new Uint8Array(), error: 'empty data' },
      { name: 'JSON instead of protobuf', body: Uint8Array.from(Buffer.from('{"kind":"Pod"}')), error: 'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]' },
      { name: 'only the prefix', body: Uint8Array.from(K8S), error: 'empty body' },
      { name: 'no kind', body: envelope('v1', '', []), error: `Object 'Kind' is missing in 'runtime.TypeMeta{APIVersion:"v1", Kind:""}'` },
      { name: 'no apiVersion', body: envelope('', 'Pod', []), error: `Object 'apiVersion' is missing in 'runtime.TypeMeta{APIVersion:"", Kind:"Pod"}'` },
      { name: 'a kind the server does not know', body: envelope('v1', 'Widget', []), error: 'no kind "Widget" is registered for version "v1" in scheme "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"' },
      { name: 'a group version the server does not serve', body: envelope('apps/v1beta1', 'Deployment', []), error: /no kind "Deployment" is registered for version "apps\/v1beta1"/ },
      { name: 'truncated object', body: envelope('v1', 'ConfigMap', [0x0a, 0x05, 0x0a]), error: /overruns the message/ },
      { name: 'truncated envelope', body: Uint8Array.from([...K8S, 0x0a, 0x20, 0x0a]), error: /overruns the message/ },
      { name: 'wrong wire type for a known field', body: envelope('v1', 'ConfigMap', vi(1, 3)), error: 'proto: wrong wireType = 0 for field metadata of k8s.io.api.core.v1.ConfigMap' },
    ];
    for (const tc of cases) {
      test(tc.name, () => {
        assert.throws(() => decodeProtobufObject(tc.body), (e: unknown) => {
          assert.ok(e instanceof Error);
          if (typeof tc.error === 'string') assert.equal(e.message, tc.error);
          else assert.match(e.message, tc.error);
          return true;
        });
      });
    }
  });
});

describe('decodeErrorMessage words the 400 as transformDecodeError does', () => {
  const cases: { name: string; body: Uint8Array; into: string; want: string }[] = [
    {
      name: 'a kind the envelope names but the server does not know',
      body: envelope('v1', 'Widget', []),
      into: 'ConfigMap',
      want: 'Widget in version "v1" cannot be handled as a ConfigMap: no kind "Widget" is registered for version "v1" in scheme "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"',
    },
    {
      name: 'a broken object of a known kind',
      body: envelope('apps/v1', 'Deployment', [0x0a, 0x05, 0x0a]),
      into: 'Deployment',
      want: 'Deployment in version "v1" cannot be handled as a Deployment: length-delimited field of 5 bytes overruns the message at offset 2',
    },
    {
      name: 'JSON sent with the protobuf content type',
      body: Uint8Array.from(Buffer.from('{"kind":"Pod","apiVersion":"v1","metadata":{}}')),
      into: 'Pod',
      want: 'the object provided is unrecognized (must be of type Pod): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] ({"kind":"Pod","apiVersion":"v1 ...)',
    },
    { name: 'an empty body', body: new Uint8Array(), into: 'Pod', want: 'the object provided is unrecognized (must be of type Pod): empty data (<empty>)' },
    { name: 'a truncated envelope', body: Uint8Array.from([...K8S, 0x0a, 0x20]), into: 'Pod', want: 'the object provided is unrecognized (must be of type Pod): length-delimited field of 32 bytes overruns the message at offset 2 (6b3873000a20)' },
  ];
  for (const tc of cases) {
    test(tc.name, () => {
      let err: unknown;
      try {
        decodeProtobufObject(tc.body);
      } catch (e) {
        err = e;
      }
      assert.ok(err instanceof ProtobufDecodeError);
      assert.equal(decodeErrorMessage(err, tc.into, tc.body), tc.want);
    });
  }
});

describe('metav1.Duration', () => {
  // Go's time_test.go durationTests (those a float64 can hold exactly)
  const cases: [string, number][] = [
    ['0s', 0],
    ['1ns', 1],
    ['1.1µs', 1100],
    ['2.2ms', 2200 * 1000],
    ['3.3s', 3300 * 1e6],
    ['4m5s', 4 * 6e10 + 5 * 1e9],
    ['4m5.001s', 4 * 6e10 + 5001 * 1e6],
    ['5h6m7.001s', 5 * 3.6e12 + 6 * 6e10 + 7001 * 1e6],
    ['8m0.000000001s', 8 * 6e10 + 1],
    ['-1.1µs', -1100],
    ['1h0m0s', 3.6e12],
  ];
  for (const [want, ns] of cases) test(want, () => assert.equal(formatGoDuration(ns), want));

  test('decodes from its message', () => {
    const decoder = new ProtobufDecoder();
    assert.equal(decoder.decodeMessage('k8s.io.apimachinery.pkg.apis.meta.v1.Duration', Uint8Array.from(vi(1, 90e9))), '1m30s');
  });
});
