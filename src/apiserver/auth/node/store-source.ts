/** The Node authorizer's graph read from the API server's watch caches (pods by node, claims). */
import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { ApiServer } from '../../server.js';
import { objectKey } from '../../registry/store.js';
import type { NodeGraphSource } from './node-authorizer.js';

export function storeNodeGraphSource(server: ApiServer): NodeGraphSource {
  return {
    async podsOnNode(nodeName) {
      const def = server.table.get('', 'v1', 'pods');
      if (def === undefined) return [];
      const cache = await server.store.cache(def);
      return cache.list({ nodeName, matches: () => true }).map((c) => c.obj as Pod);
    },
    async getPersistentVolumeClaim(namespace, name) {
      const def = server.table.get('', 'v1', 'persistentvolumeclaims');
      if (def === undefined) return undefined;
      const cache = await server.store.cache(def);
      return cache.get(objectKey(def, namespace, name))?.obj as PersistentVolumeClaim | undefined;
    },
  };
}
