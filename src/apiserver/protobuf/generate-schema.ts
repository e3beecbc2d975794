/**
 * Writes `schema/k8s-1.32.ts` from a kubectl binary (not run by tests; run by hand when upgrading):
 *
 *   node dist-x/src/apiserver/protobuf/generate-schema.js /path/to/kubectl src/apiserver/protobuf/schema/k8s-1.32.ts
 *
 * Two sources inside the Go binary, both compiled from upstream's sources:
 * - the gzipped `FileDescriptorProto` that gogo-protobuf registers for every `generated.proto`
 *   (`fileDescriptor_xxx` in `generated.pb.go`): message names, field names, numbers, types, labels;
 * - Go's reflection metadata for the API structs (`abi.StructType`): each field's struct tag
 *   (`json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"`) and kind (pointer, slice, ...).
 *   The JSON form of a decoded object depends on these (`omitempty` drops a non-pointer zero, `,inline`
 *   merges an embedded struct), and `generated.proto` does not record them.
 * Assumes a statically linked linux/amd64 ELF built by Go >= 1.22 (kubectl release binaries).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { inflateRawSync, constants as zlibConstants } from 'node:zlib';
import { WireReader, toUint64 } from './wire.js';
import type { FieldTuple } from './schema/types.js';

/** `+groupName` of each k8s.io/api package directory (doc.go). */
const GROUPS: Readonly<Record<string, string>> = {
  core: '',
  admission: 'admission.k8s.io',
  admissionregistration: 'admissionregistration.k8s.io',
  apidiscovery: 'apidiscovery.k8s.io',
  apps: 'apps',
  authentication: 'authentication.k8s.io',
  authorization: 'authorization.k8s.io',
  autoscaling: 'autoscaling',
  batch: 'batch',
  certificates: 'certificates.k8s.io',
  coordination: 'coordination.k8s.io',
  discovery: 'discovery.k8s.io',
  events: 'events.k8s.io',
  flowcontrol: 'flowcontrol.apiserver.k8s.io',
  networking: 'networking.k8s.io',
  node: 'node.k8s.io',
  policy: 'policy',
  rbac: 'rbac.authorization.k8s.io',
  scheduling: 'scheduling.k8s.io',
  storage: 'storage.k8s.io',
};

/** Stable versions only: the API server serves no beta or alpha group versions. */
const VERSION = /^v\d+$/;
const MACHINERY = new Set([
  'k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto',
  'k8s.io/apimachinery/pkg/api/resource/generated.proto',
  'k8s.io/apimachinery/pkg/util/intstr/generated.proto',
  'k8s.io/apimachinery/pkg/runtime/generated.proto',
]);

const SCALARS: Readonly<Record<number, string>> = {
  1: 'double', 2: 'float', 3: 'int64', 4: 'uint64', 5: 'int32', 6: 'fixed64', 7: 'fixed32', 8: 'bool',
  9: 'string', 12: 'bytes', 13: 'uint32', 15: 'sfixed32', 16: 'sfixed64', 17: 'sint32', 18: 'sint64',
};

interface ProtoField { name: string; number: number; label: number; type: number; typeName: string }
interface ProtoMessage { fullName: string; pkg: string; fields: ProtoField[]; mapEntry: boolean }
interface GoField { name: string; tag: string; embedded: boolean; kind: number }
interface GoStruct { pkg: string; name: string; fields: GoField[] }

const utf8 = new TextDecoder();

function parseField(buf: Uint8Array): ProtoField {
  const f: ProtoField = { name: '', number: 0, label: 1, type: 0, typeName: '' };
  const r = new WireReader(buf);
  while (!r.done) {
    const { fieldNumber, wireType } = r.tag();
    if (fieldNumber === 1) f.name = utf8.decode(r.bytes());
    else if (fieldNumber === 3) f.number = toUint64(r.varint64());
    else if (fieldNumber === 4) f.label = toUint64(r.varint64());
    else if (fieldNumber === 5) f.type = toUint64(r.varint64());
    else if (fieldNumber === 6) f.typeName = utf8.decode(r.bytes());
    else r.skip(wireType, fieldNumber);
  }
  return f;
}

function parseMessage(buf: Uint8Array, scope: string, pkg: string, out: ProtoMessage[]): void {
  const m: ProtoMessage = { fullName: '', pkg, fields: [], mapEntry: false };
  const nested: Uint8Array[] = [];
  const r = new WireReader(buf);
  while (!r.done) {
    const { fieldNumber, wireType } = r.tag();
    if (fieldNumber === 1) m.fullName = `${scope}.${utf8.decode(r.bytes())}`;
    else if (fieldNumber === 2) m.fields.push(parseField(r.bytes()));
    else if (fieldNumber === 3) nested.push(r.bytes());
    else if (fieldNumber === 4) throw new Error(`enums are not expected in Kubernetes protos (${scope})`);
    else if (fieldNumber === 7) {
      const o = new WireReader(r.bytes());
      while (!o.done) {
        const t = o.tag();
        if (t.fieldNumber === 7) m.mapEntry = toUint64(o.varint64()) !== 0;
        else o.skip(t.wireType, t.fieldNumber);
      }
    } else r.skip(wireType, fieldNumber);
  }
  out.push(m);
  for (const n of nested) parseMessage(n, m.fullName, pkg, out);
}

function parseFile(buf: Uint8Array): { name: string; pkg: string; messages: ProtoMessage[] } {
  let name = '';
  let pkg = '';
  const raw: Uint8Array[] = [];
  const r = new WireReader(buf);
  while (!r.done) {
    const { fieldNumber, wireType } = r.tag();
    if (fieldNumber === 1) name = utf8.decode(r.bytes());
    else if (fieldNumber === 2) pkg = utf8.decode(r.bytes());
    else if (fieldNumber === 4) raw.push(r.bytes());
    else r.skip(wireType, fieldNumber);
  }
  const messages: ProtoMessage[] = [];
  for (const m of raw) parseMessage(m, pkg, pkg, messages);
  return { name, pkg, messages };
}

/** Every gzip member in the binary that inflates to a FileDescriptorProto of a wanted file. */
function fileDescriptors(bin: Buffer): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  for (let i = bin.indexOf(0x1f); i >= 0 && i < bin.length - 3; i = bin.indexOf(0x1f, i + 1)) {
    if (bin[i + 1] !== 0x8b || bin[i + 2] !== 8) continue;
    let data: Buffer;
    try {
      // Go writes a bare 10-byte gzip header; inflating the raw deflate stream stops at its end, where
      // gunzip would run on into the next gzip member.
      if (bin[i + 3] !== 0) continue;
      data = inflateRawSync(bin.subarray(i + 10, i + 1_000_000), { finishFlush: zlibConstants.Z_SYNC_FLUSH });
    } catch {
      continue;
    }
    if (data[0] !== 0x0a) continue;
    let name: string;
    try {
      name = parseFile(data).name;
    } catch {
      continue;
    }
    const m = /^k8s\.io\/api\/([a-z]+)\/(v\d+\w*)\/generated\.proto$/.exec(name);
    const wanted = MACHINERY.has(name) || (m !== null && m[1] !== undefined && m[1] in GROUPS && VERSION.test(m[2] ?? ''));
    if (wanted && !out.has(name)) out.set(name, data);
  }
  return out;
}

/** Go reflection metadata of every struct type that has at least one `protobuf:"..."` tag. */
function goStructs(bin: Buffer): GoStruct[] {
  const shoff = Number(bin.readBigUInt64LE(0x28));
  const shentsize = bin.readUInt16LE(0x3a);
  const shnum = bin.readUInt16LE(0x3c);
  const shstrndx = bin.readUInt16LE(0x3e);
  const sections = Array.from({ length: shnum }, (_, i) => {
    const o = shoff + i * shentsize;
    return { nameOff: bin.readUInt32LE(o), addr: Number(bin.readBigUInt64LE(o + 0x10)), offset: Number(bin.readBigUInt64LE(o + 0x18)), size: Number(bin.readBigUInt64LE(o + 0x20)) };
  });
  const strtab = sections[shstrndx];
  if (strtab === undefined) throw new Error('no section string table');
  const secName = (s: { nameOff: number }): string => bin.toString('latin1', strtab.offset + s.nameOff, bin.indexOf(0, strtab.offset + s.nameOff));
  const rodata = sections.find((s) => secName(s) === '.rodata');
  if (rodata === undefined) throw new Error('no .rodata section');
  // Type data, names and struct field arrays all live in .rodata and the read-only segment after it.
  const roEnd = Math.max(...sections.filter((s) => s.addr >= rodata.addr && s.offset > 0 && secName(s) !== '.go.buildinfo' && s.addr < rodata.addr + 0x10000000).map((s) => s.addr + s.size));
  const inRo = (v: number): boolean => v >= rodata.addr && v < roEnd;
  const off = (v: number): number => v - rodata.addr + rodata.offset;
  const ptr = (o: number): number => (bin.readUInt32LE(o + 4) === 0 ? bin.readUInt32LE(o) : -1);
  const varint = (o: number): [number, number] => {
    let x = 0;
    for (let n = 0, s = 0; ; n++, s += 7) {
      const c = bin[o + n] ?? 0;
      x += (c & 0x7f) * 2 ** s;
      if (c < 0x80) return [x, n + 1];
    }
  };
  const readName = (v: number): { name: string; tag: string; embedded: boolean } => {
    const o = off(v);
    const flags = bin[o] ?? 0;
    const [l, n1] = varint(o + 1);
    const name = bin.toString('latin1', o + 1 + n1, o + 1 + n1 + l);
    let tag = '';
    if (flags & 2) {
      const p = o + 1 + n1 + l;
      const [tl, n2] = varint(p);
      tag = bin.toString('latin1', p + n2, p + n2 + tl);
    }
    return { name, tag, embedded: (flags & 8) !== 0 };
  };
  const structs: GoStruct[] = [];
  // abi.StructType: abi.Type (48 bytes; Kind at 23, TFlag at 20, Str nameOff at 40), PkgPath (8),
  // Fields slice (ptr, len, cap), then abi.UncommonType (PkgPath nameOff) when TFlagUncommon is set.
  for (let p = rodata.offset; p < rodata.offset + rodata.size - 88; p += 8) {
    if (((bin[p + 23] ?? 0) & 31) !== 25) continue;
    const arr = ptr(p + 56);
    const len = ptr(p + 64);
    if (len <= 0 || len > 300 || len !== ptr(p + 72) || !inRo(arr)) continue;
    const fields: GoField[] = [];
    let protoTagged = false;
    for (let i = 0; i < len; i++) {
      const fo = off(arr) + 24 * i;
      const nv = ptr(fo);
      const tv = ptr(fo + 8);
      if (!inRo(nv) || !inRo(tv)) break;
      const n = readName(nv);
      if (n.tag.includes('protobuf:"')) protoTagged = true;
      fields.push({ ...n, kind: (bin[off(tv) + 23] ?? 0) & 31 });
    }
    if (!protoTagged || fields.length !== len) continue;
    const tflag = bin[p + 20] ?? 0;
    if ((tflag & 1) === 0) continue;
    let name = readName(rodata.addr + bin.readInt32LE(p + 40)).name;
    if (tflag & 2) name = name.slice(1);
    const pkg = readName(rodata.addr + bin.readInt32LE(p + 80)).name;
    structs.push({ pkg, name: name.slice(name.indexOf('.') + 1), fields });
  }
  return structs;
}

const GO_KIND = { map: 21, ptr: 22, slice: 23 } as const;

function tagValue(tag: string, key: string): string | undefined {
  return new RegExp(`(?:^|\\s)${key}:"([^"]*)"`).exec(tag)?.[1];
}

function main(): void {
  const [binPath, outPath] = process.argv.slice(2);
  if (binPath === undefined || outPath === undefined) throw new Error('usage: generate-schema <kubectl> <out.ts>');
  const bin = readFileSync(binPath);
  const files = fileDescriptors(bin);
  const structs = goStructs(bin);
  const byGoName = new Map<string, GoStruct>();
  for (const s of structs) byGoName.set(`${s.pkg.replaceAll('/', '.')}.${s.name}`, s);

  const all: ProtoMessage[] = [];
  const packages = new Map<string, string>();
  for (const [name, data] of [...files].sort((a, b) => a[0].localeCompare(b[0]))) {
    const f = parseFile(data);
    packages.set(f.pkg, name);
    all.push(...f.messages);
  }
  const byName = new Map(all.map((m) => [m.fullName, m]));
  const relative = (typeName: string, pkg: string): string => {
    const t = typeName.replace(/^\./, '');
    return t.startsWith(`${pkg}.`) && !t.slice(pkg.length + 1).includes('.') ? t.slice(pkg.length + 1) : t;
  };
  const typeOf = (f: ProtoField, pkg: string): string => {
    if (f.type !== 11) {
      const s = SCALARS[f.type];
      if (s === undefined) throw new Error(`unsupported field type ${f.type} of ${f.name}`);
      return s;
    }
    const entry = byName.get(f.typeName.replace(/^\./, ''));
    if (entry?.mapEntry) {
      const [k, v] = [entry.fields.find((x) => x.number === 1), entry.fields.find((x) => x.number === 2)];
      if (k === undefined || v === undefined) throw new Error(`bad map entry ${entry.fullName}`);
      return `map<${typeOf(k, pkg)},${typeOf(v, pkg)}>`;
    }
    return relative(f.typeName, pkg);
  };

  const messages: Record<string, FieldTuple[]> = {};
  const arrayWrappers: string[] = [];
  const kinds: Record<string, Record<string, string>> = {};
  const warnings: string[] = [];
  for (const m of all) {
    if (m.mapEntry) continue;
    const go = byGoName.get(m.fullName);
    if (go === undefined) {
      const only = m.fields[0];
      if (m.fields.length === 1 && only !== undefined && only.name === 'items' && only.number === 1 && only.label === 3) arrayWrappers.push(m.fullName);
      else warnings.push(`no Go struct for ${m.fullName}`);
    }
    const rows: { order: number; tuple: FieldTuple }[] = [];
    for (const f of m.fields) {
      const gi = go?.fields.findIndex((g) => {
        const pb = tagValue(g.tag, 'protobuf')?.split(',') ?? [];
        return pb[1] === String(f.number) && (pb.includes(`name=${f.name}`) || !pb.some((x) => x.startsWith("name=")));
      }) ?? -1;
      const g = go?.fields[gi];
      let flags = f.label === 3 && !typeOf(f, m.pkg).startsWith('map<') ? 'r' : '';
      let json: string | undefined;
      if (g === undefined) {
        if (go !== undefined) warnings.push(`no Go field for ${m.fullName}.${f.name}`);
      } else {
        const [jn = '', ...opts] = (tagValue(g.tag, 'json') ?? g.name).split(',');
        if (opts.includes('omitempty')) flags += 'o';
        if (opts.includes('inline')) flags += 'i';
        if (g.kind === GO_KIND.ptr) flags += 'p';
        else if (g.kind === GO_KIND.slice) flags += 's';
        else if (g.kind === GO_KIND.map) flags += 'm';
        if (!opts.includes('inline') && jn !== f.name) json = jn === '' ? g.name : jn;
      }
      const tuple: FieldTuple = json === undefined ? [f.name, f.number, typeOf(f, m.pkg), flags] : [f.name, f.number, typeOf(f, m.pkg), flags, json];
      rows.push({ order: gi < 0 ? 1000 + f.number : gi, tuple });
    }
    messages[m.fullName] = rows.sort((a, b) => a.order - b.order).map((r) => r.tuple);
    if (go?.fields.some((g) => g.embedded && g.name === 'TypeMeta')) {
      const file = packages.get(m.pkg) ?? '';
      const dir = /^k8s\.io\/api\/([a-z]+)\/(v\d+)\//.exec(file);
      const apiVersion = dir !== null ? [GROUPS[dir[1] ?? ''], dir[2]].filter((s) => s !== '').join('/') : file.includes('/meta/v1/') ? 'meta.k8s.io/v1' : '';
      if (apiVersion !== '') (kinds[apiVersion] ??= {})[m.fullName.slice(m.pkg.length + 1)] = m.fullName;
    }
  }
  for (const w of warnings) process.stderr.write(`warning: ${w}\n`);

  const lines: string[] = [];
  lines.push('// Generated by generate-schema.ts from the kubectl v1.32 binary; do not edit by hand.');
  lines.push("import type { ProtoSchema } from './types.js';");
  lines.push('');
  lines.push('export const k8sSchema: ProtoSchema = {');
  lines.push(`  origin: ${JSON.stringify(`gogo FileDescriptorProtos of ${[...files.keys()].length} upstream generated.proto files and Go struct tags, read from ${process.argv[4] ?? 'kubectl'}`)},`);
  lines.push('  messages: {');
  for (const [name, fields] of Object.entries(messages)) {
    lines.push(`    ${JSON.stringify(name)}: [`);
    for (const t of fields) lines.push(`      ${JSON.stringify(t)},`);
    lines.push('    ],');
  }
  lines.push('  },');
  lines.push(`  arrayWrappers: ${JSON.stringify(arrayWrappers)},`);
  lines.push('  kinds: {');
  for (const [gv, ks] of Object.entries(kinds)) lines.push(`    ${JSON.stringify(gv)}: ${JSON.stringify(ks)},`);
  lines.push('  },');
  lines.push('};');
  writeFileSync(outPath, `${lines.join('\n')}\n`);
}

main();
