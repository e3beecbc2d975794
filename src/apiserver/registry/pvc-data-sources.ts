/**
 * What the PersistentVolumeClaim strategy does to a claim's spec before validation
 * (`pkg/api/persistentvolumeclaim/util.go`, v1.32), on create and on update:
 * - `DropDisabledFields`: `volumeAttributesClassName` (VolumeAttributesClass, beta and off) and
 *   `dataSourceRef.namespace` (CrossNamespaceVolumeDataSource, alpha) go, unless the stored claim uses them;
 * - `EnforceDataSourceBackwardsCompatibility`: without `dataSourceRef`, a `dataSource` other than a
 *   PersistentVolumeClaim or a VolumeSnapshot is dropped, as if an empty volume had been asked for (KEP 1495),
 *   unless the stored claim has a data source;
 * - `NormalizeDataSources` (AnyVolumeDataSource, GA): either reference fills in the other, so both read back.
 */
import { given } from '../../util/go-nil.js';

type Ref = { apiGroup?: string | null; kind?: string; name?: string; namespace?: string | null };

export interface ClaimSpec {
  dataSource?: Ref | null;
  dataSourceRef?: Ref | null;
  volumeAttributesClassName?: string | null;
}

/** `DropDisabledFields` alone (the first step of `prepareClaimSpec`). */
export function dropDisabledFields(spec: ClaimSpec, old: ClaimSpec | undefined): void {
  if (!given(old?.volumeAttributesClassName)) delete spec.volumeAttributesClassName;
  const ref = spec.dataSourceRef;
  if (given(ref) && !((old?.dataSourceRef?.namespace ?? '') !== '')) delete ref.namespace;
}

/** `dataSourceIsPvcOrSnapshot`. */
function isPvcOrSnapshot(ref: Ref): boolean {
  const apiGroup = ref.apiGroup ?? '';
  return (ref.kind === 'PersistentVolumeClaim' && apiGroup === '') || (ref.kind === 'VolumeSnapshot' && apiGroup === 'snapshot.storage.k8s.io');
}

function enforceDataSourceBackwardsCompatibility(spec: ClaimSpec, old: ClaimSpec | undefined): void {
  // dataSourceInUse(old): an update of a claim with a data source keeps whatever it sends.
  if (given(old?.dataSource) || given(old?.dataSourceRef)) return;
  if (given(spec.dataSourceRef)) return;
  if (given(spec.dataSource) && !isPvcOrSnapshot(spec.dataSource)) delete spec.dataSource;
}

/** A copy of a reference's kind, name and (when set) apiGroup. */
function copyRef(ref: Ref): Ref {
  return { ...(given(ref.apiGroup) ? { apiGroup: ref.apiGroup } : {}), kind: ref.kind ?? '', name: ref.name ?? '' };
}

function normalizeDataSources(spec: ClaimSpec): void {
  if (given(spec.dataSource) && !given(spec.dataSourceRef)) spec.dataSourceRef = copyRef(spec.dataSource);
  else if (given(spec.dataSourceRef) && !given(spec.dataSource) && (spec.dataSourceRef.namespace ?? '') === '') spec.dataSource = copyRef(spec.dataSourceRef);
}

/**
 * The strategy's PrepareForCreate (`old` undefined) and PrepareForUpdate for the claim's spec. On update the
 * stored claim's spec is normalized too (in memory, for validation), so claims stored by earlier versions pass.
 */
export function prepareClaimSpec(spec: ClaimSpec, old?: ClaimSpec): void {
  dropDisabledFields(spec, old);
  enforceDataSourceBackwardsCompatibility(spec, old);
  normalizeDataSources(spec);
  if (old !== undefined) normalizeDataSources(old);
}
