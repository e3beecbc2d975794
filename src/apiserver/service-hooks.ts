/**
 * The Service REST layer's allocations as storage hooks: cluster IPs and node ports are allocated
 * (or checked) before validation, kept when the write is stored, given back when it fails or the
 * Service is deleted. State is rebuilt from the stored Services when the server starts.
 */
import type { Service } from 'kubernetes-types/core/v1.js';
import { ServiceAllocation, type ServiceAllocationOptions } from './allocators/index.js';
import type { StorageHooks } from './registry/policy.js';
import type { ApiServer } from './server.js';
import { parseSelector } from '../api/labels.js';
import { FieldSelector } from '../api/fields.js';

export class ServiceHooks implements StorageHooks {
  readonly allocation: ServiceAllocation;

  constructor(opts: ServiceAllocationOptions = {}) {
    this.allocation = new ServiceAllocation(opts);
  }

  beginCreate(obj: Record<string, unknown>, dryRun: boolean): ReturnType<ServiceAllocation['allocateCreate']> {
    return this.allocation.allocateCreate(obj, { dryRun });
  }

  beginUpdate(obj: Record<string, unknown>, old: Record<string, unknown>, dryRun: boolean): ReturnType<ServiceAllocation['allocateUpdate']> {
    return this.allocation.allocateUpdate(obj, old, { dryRun });
  }

  afterDelete(obj: Record<string, unknown>): void {
    this.allocation.release(obj);
  }

  /** Marks what stored Services hold; reports conflicts as kube-apiserver's repair loop would log them. */
  async rebuild(server: ApiServer): Promise<void> {
    const def = server.table.get('', 'v1', 'services');
    if (def === undefined) return;
    const listed = await server.store.list(def, { labelSelector: parseSelector(''), fieldSelector: FieldSelector.everything(), resourceVersion: '0' });
    const problems = this.allocation.rebuild(listed.items.map((c) => c.obj as Service));
    for (const p of problems) console.warn(`service allocation repair: ${p}`);
  }
}
