/** Test helpers: a default-profile Framework over a fixed snapshot, and running one plugin's points. */
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { Snapshot } from '../cache/snapshot.js';
import { CycleState } from '../framework/cycle-state.js';
import type { ApiActions, Plugin, VolumeLister } from '../framework/interfaces.js';
import { defaultProfile, type Profile } from '../framework/profile.js';
import { Registry } from '../framework/registry.js';
import { Framework, type NamespaceLister, type Nominator } from '../framework/runtime.js';
import { newInTreeRegistry } from '../plugins/registry.js';

export interface TestFrameworkOptions {
  nodes?: readonly Node[];
  pods?: readonly Pod[];
  profile?: Profile;
  random?: () => number;
  nominator?: Nominator;
  namespaces?: NamespaceLister;
  apiActions?: ApiActions;
  volumeLister?: VolumeLister;
}

export function newTestFramework(opts: TestFrameworkOptions = {}): { fwk: Framework; snapshot: Snapshot } {
  const snapshot = Snapshot.fromPodsAndNodes(opts.pods ?? [], opts.nodes ?? []);
  const fwk = new Framework({
    registry: newInTreeRegistry(),
    profile: opts.profile ?? defaultProfile(),
    ...(opts.random !== undefined ? { random: opts.random } : {}),
    ...(opts.nominator !== undefined ? { nominator: opts.nominator } : {}),
    ...(opts.namespaces !== undefined ? { namespaces: opts.namespaces } : {}),
    ...(opts.apiActions !== undefined ? { apiActions: opts.apiActions } : {}),
    ...(opts.volumeLister !== undefined ? { volumeLister: opts.volumeLister } : {}),
  });
  fwk.setSnapshot(snapshot);
  return { fwk, snapshot };
}

/** A framework whose profile holds exactly the named plugins (and returns the instance of the first). */
export function pluginUnderTest<T extends Plugin>(name: string, opts: TestFrameworkOptions & { args?: unknown; registry?: Registry } = {}): { plugin: T; fwk: Framework; snapshot: Snapshot; state: CycleState } {
  const { fwk, snapshot } = newTestFramework({ ...opts, profile: { schedulerName: 'test', plugins: [{ name, ...(opts.args !== undefined ? { args: opts.args } : {}) }] } });
  return { plugin: fwk.plugins[0] as T, fwk, snapshot, state: new CycleState() };
}
