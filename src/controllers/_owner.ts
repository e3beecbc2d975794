/**
 * ownerReferences: the controller reference, and the adopt/release rules of upstream's
 * `ControllerRefManager.ClaimObject` (pkg/controller/controller_ref_manager.go).
 */
import type { ObjectMeta, OwnerReference } from 'kubernetes-types/meta/v1.js';
import type { Selector } from '../api/labels.js';
import type { ResourceType } from '../api/resources.js';
import { isNotFound } from '../api/errors.js';
import type { Client, KubeObject } from '../client/client.js';

export function controllerRef(meta: ObjectMeta | undefined): OwnerReference | undefined {
  // A loop, not `find`: claims and indexes ask this of every pod of a controller at every sync.
  for (const r of meta?.ownerReferences ?? []) if (r.controller === true) return r;
  return undefined;
}

/** The reference a controller puts on what it creates (`metav1.NewControllerRef`). */
export function newControllerRef(owner: KubeObject, apiVersion: string, kind: string): OwnerReference {
  return {
    apiVersion,
    kind,
    name: owner.metadata?.name ?? '',
    uid: owner.metadata?.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

export interface ClaimOptions<T extends KubeObject> {
  client: Client;
  res: ResourceType;
  owner: KubeObject;
  ownerApiVersion: string;
  ownerKind: string;
  selector: Selector;
  /** Re-reads the owner from the API before adopting (`RecheckDeletionTimestamp`). */
  canAdopt: () => Promise<boolean>;
  /** Extra condition for adoption (DaemonSet/Deployment use none; the StatefulSet checks names). */
  filter?: (obj: T) => boolean;
}

/**
 * Claims `objs` for `owner`: keeps those it controls that still match, adopts matching orphans, releases
 * those that no longer match. Answers the claimed objects (with adoption applied).
 */
export async function claimObjects<T extends KubeObject>(objs: readonly T[], o: ClaimOptions<T>): Promise<T[]> {
  const ownerUid = o.owner.metadata?.uid ?? '';
  const ownerDeleting = o.owner.metadata?.deletionTimestamp !== undefined;
  const claimed: T[] = [];
  let adoptable: boolean | undefined;
  for (const obj of objs) {
    const ref = controllerRef(obj.metadata);
    // Objects of other controllers are skipped before the selector is evaluated: in a namespace of many
    // controllers they are most of `objs`.
    if (ref !== undefined && ref.uid !== ownerUid) continue;
    const matches = o.selector.matches(obj.metadata?.labels) && (o.filter === undefined || o.filter(obj));
    if (ref !== undefined) {
      if (matches) {
        claimed.push(obj);
        continue;
      }
      if (ownerDeleting) continue;
      await release(obj, o);
      continue;
    }
    if (ownerDeleting || !matches || obj.metadata?.deletionTimestamp !== undefined) continue;
    adoptable ??= await o.canAdopt();
    if (!adoptable) continue;
    const adopted = await adopt(obj, o);
    if (adopted !== undefined) claimed.push(adopted);
  }
  return claimed;
}

async function adopt<T extends KubeObject>(obj: T, o: ClaimOptions<T>): Promise<T | undefined> {
  const refs = [...(obj.metadata?.ownerReferences ?? []), newControllerRef(o.owner, o.ownerApiVersion, o.ownerKind)];
  try {
    return await o.client.patch<T>(
      o.res,
      obj.metadata?.name ?? '',
      'merge',
      { metadata: { ownerReferences: refs, resourceVersion: obj.metadata?.resourceVersion } },
      nsOpt(obj),
    );
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

async function release<T extends KubeObject>(obj: T, o: ClaimOptions<T>): Promise<void> {
  const uid = o.owner.metadata?.uid ?? '';
  const refs = (obj.metadata?.ownerReferences ?? []).filter((r) => r.uid !== uid);
  try {
    await o.client.patch(o.res, obj.metadata?.name ?? '', 'merge', { metadata: { ownerReferences: refs } }, nsOpt(obj));
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
}

function nsOpt(obj: KubeObject): { namespace?: string } {
  const ns = obj.metadata?.namespace;
  return ns === undefined ? {} : { namespace: ns };
}

/** `RecheckDeletionTimestamp` over a fresh GET: the owner must exist with the same uid and not be deleting. */
export function recheckOwner(client: Client, res: ResourceType, owner: KubeObject): () => Promise<boolean> {
  return async () => {
    try {
      const fresh = await client.get(res, owner.metadata?.name ?? '', nsOpt(owner));
      return fresh.metadata?.uid === owner.metadata?.uid && fresh.metadata?.deletionTimestamp === undefined;
    } catch (e) {
      if (isNotFound(e)) return false;
      throw e;
    }
  };
}
