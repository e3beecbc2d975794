/**
 * What the strategy tests share: the resource table, and a store on a temporary SQLite backend with the
 * defaulters and the real field manager, as the API server wires them.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openBackend } from '../../storage/index.js';
import { OpenApi } from '../openapi/index.js';
import { applyDefaults } from '../validation/defaults.js';
import { ResourceTable, type ResourceDef } from '../discovery/resource-defs.js';
import { CacheDispatcher } from '../storage/watch-cache.js';
import { managedFieldsUpdater } from '../wiring.js';
import { noPolicy, type ObjectPolicy } from './policy.js';
import type { RequestContext } from './store.js';
import { ConvertingStore } from './converting-store.js';

export const table = new ResourceTable();

/** The served resource, which must exist. */
export function def(group: string, version: string, resource: string): ResourceDef {
  const d = table.get(group, version, resource);
  assert.ok(d !== undefined, `${group}/${version}/${resource}`);
  return d;
}

/** A request by a cluster admin through `fieldManager`. */
export function adminCtx(fieldManager: string): RequestContext {
  return { user: { username: 'admin', groups: ['system:masters'] }, dryRun: false, fieldManager, fieldValidation: 'Ignore' };
}

export interface StrategyStore {
  readonly store: ConvertingStore;
  close(): Promise<void>;
}

/** A store with defaulting and managed fields (time fixed at 2026-11-22) on a fresh data dir. */
export async function openStrategyStore(prefix: string): Promise<StrategyStore> {
  const dataDir = await mkdtemp(join(tmpdir(), prefix));
  const backend = await openBackend({ kind: 'sqlite', dataDir, compaction: false });
  const policy: ObjectPolicy = { ...noPolicy, applyDefaults: (d, o) => applyDefaults({ group: d.group, version: d.version, kind: d.kind }, o) };
  const store = new ConvertingStore({ backend, dispatcher: new CacheDispatcher(backend), policy, managedFields: managedFieldsUpdater(new OpenApi(), () => Date.UTC(2026, 10, 22)) }, table);
  return {
    store,
    close: async () => {
      await backend.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
