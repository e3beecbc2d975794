/**
 * The API server's `ServiceAccountTokenGetter`: objects from the watch cache, with a live read from storage
 * when the cache does not have them (yet), as kube-apiserver's getter falls back from its listers to a
 * client.
 */
import type { Node, Pod, Secret, ServiceAccount } from 'kubernetes-types/core/v1.js';
import type { ApiServer } from '../../server.js';
import { isNotFound } from '../../../api/errors.js';
import { objectKey } from '../../registry/store.js';
import type { ServiceAccountTokenGetter } from './jwt.js';

export function storeTokenGetter(server: ApiServer): ServiceAccountTokenGetter {
  const read = async <T>(resource: string, namespace: string, name: string): Promise<T | undefined> => {
    const def = server.table.get('', 'v1', resource);
    if (def === undefined || name === '') return undefined;
    const cached = (await server.store.cache(def)).get(objectKey(def, namespace, name));
    if (cached !== undefined) return cached.obj as T;
    try {
      return (await server.store.get(def, namespace, name)) as T;
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  };
  return {
    getServiceAccount: (namespace, name) => read<ServiceAccount>('serviceaccounts', namespace, name),
    getPod: (namespace, name) => read<Pod>('pods', namespace, name),
    getSecret: (namespace, name) => read<Secret>('secrets', namespace, name),
    getNode: (name) => read<Node>('nodes', '', name),
  };
}
