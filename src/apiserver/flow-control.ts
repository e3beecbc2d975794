/**
 * API Priority and Fairness for the calls the components and the node host send over their channels: each
 * call is classified by kube-apiserver's suggested FlowSchemas into a priority level and a flow, and the
 * waiting calls are started in the order APF's fair queuing gives them. Levels share the server by their
 * nominal concurrency shares (a level with fewer calls waiting than its share starts them at once), and
 * within a level the flows take turns. So, as on a real server, node heartbeats (`system-node-high`: Node
 * status and Leases) do not wait behind thousands of kubelet events and pod status writes, and one busy
 * flow does not hold back the others.
 *
 * What is not modelled: seat limits and borrowing (the server's limit here is its one thread, not
 * concurrency), queue length limits and the 429s they cause, and HTTP requests, which are served as they
 * arrive.
 */
import type { UserInfo } from './registry/policy.js';
import { Fifo } from '../util/fifo.js';

export type PriorityLevel = 'exempt' | 'node-high' | 'system' | 'leader-election' | 'workload-high' | 'workload-low' | 'global-default' | 'catch-all';

/** `nominalConcurrencyShares` of the suggested and mandatory PriorityLevelConfigurations. */
export const nominalConcurrencyShares: Readonly<Record<Exclude<PriorityLevel, 'exempt'>, number>> = {
  'node-high': 40,
  system: 30,
  'leader-election': 10,
  'workload-high': 40,
  'workload-low': 100,
  'global-default': 20,
  'catch-all': 5,
};

/** What a FlowSchema looks at in a resource request. */
export interface RequestAttributes {
  user: UserInfo;
  /** get, list, watch, create, update, patch, delete, deletecollection. */
  verb: string;
  group: string;
  /** With the subresource: `nodes/status`. */
  resource: string;
  /** '' for a cluster-scoped resource. */
  namespace: string;
}

export interface Classification {
  flowSchema: string;
  level: PriorityLevel;
  /** The flow within the level: the distinguisher's value (user name or namespace), '' without one. */
  flow: string;
}

type Distinguisher = 'ByUser' | 'ByNamespace' | undefined;

interface ResourceRule {
  verbs: readonly string[] | '*';
  groups: readonly string[] | '*';
  resources: readonly string[] | '*';
  /** `*` is every namespace; cluster-scoped requests match only with `clusterScope`. */
  namespaces: readonly string[] | '*';
  clusterScope: boolean;
}

interface Subjects {
  users?: readonly string[];
  groups?: readonly string[];
  /** Service accounts of kube-system, any name. */
  kubeSystemServiceAccounts?: boolean;
}

interface FlowSchema {
  name: string;
  level: PriorityLevel;
  distinguisher: Distinguisher;
  subjects: Subjects;
  rules: readonly ResourceRule[];
}

const everything: ResourceRule = { verbs: '*', groups: '*', resources: '*', namespaces: '*', clusterScope: true };
const leaderElectionVerbs = ['get', 'create', 'update'];

/** The mandatory and suggested FlowSchemas of kube-apiserver 1.32, in matching precedence order. */
const flowSchemas: readonly FlowSchema[] = [
  { name: 'exempt', level: 'exempt', distinguisher: undefined, subjects: { groups: ['system:masters'] }, rules: [everything] },
  {
    name: 'system-leader-election',
    level: 'leader-election',
    distinguisher: 'ByUser',
    subjects: { users: ['system:kube-controller-manager', 'system:kube-scheduler'], kubeSystemServiceAccounts: true },
    rules: [
      { verbs: leaderElectionVerbs, groups: [''], resources: ['endpoints', 'configmaps'], namespaces: ['kube-system'], clusterScope: false },
      { verbs: leaderElectionVerbs, groups: ['coordination.k8s.io'], resources: ['leases'], namespaces: '*', clusterScope: false },
    ],
  },
  {
    name: 'endpoint-controller',
    level: 'workload-high',
    distinguisher: 'ByUser',
    subjects: { users: ['system:kube-controller-manager', 'system:serviceaccount:kube-system:endpoint-controller'] },
    rules: [{ verbs: leaderElectionVerbs, groups: [''], resources: ['endpoints'], namespaces: '*', clusterScope: false }],
  },
  {
    name: 'workload-leader-election',
    level: 'leader-election',
    distinguisher: 'ByUser',
    subjects: { kubeSystemServiceAccounts: true },
    rules: [
      { verbs: leaderElectionVerbs, groups: [''], resources: ['endpoints', 'configmaps'], namespaces: '*', clusterScope: false },
      { verbs: leaderElectionVerbs, groups: ['coordination.k8s.io'], resources: ['leases'], namespaces: '*', clusterScope: false },
    ],
  },
  {
    name: 'system-node-high',
    level: 'node-high',
    distinguisher: 'ByUser',
    subjects: { groups: ['system:nodes'] },
    rules: [
      { verbs: '*', groups: [''], resources: ['nodes', 'nodes/status'], namespaces: '*', clusterScope: true },
      { verbs: '*', groups: ['coordination.k8s.io'], resources: ['leases'], namespaces: '*', clusterScope: false },
    ],
  },
  { name: 'system-nodes', level: 'system', distinguisher: 'ByUser', subjects: { groups: ['system:nodes'] }, rules: [everything] },
  { name: 'kube-controller-manager', level: 'workload-high', distinguisher: 'ByNamespace', subjects: { users: ['system:kube-controller-manager'] }, rules: [everything] },
  { name: 'kube-scheduler', level: 'workload-high', distinguisher: 'ByNamespace', subjects: { users: ['system:kube-scheduler'] }, rules: [everything] },
  { name: 'kube-system-service-accounts', level: 'workload-high', distinguisher: 'ByNamespace', subjects: { kubeSystemServiceAccounts: true }, rules: [everything] },
  { name: 'service-accounts', level: 'workload-low', distinguisher: 'ByUser', subjects: { groups: ['system:serviceaccounts'] }, rules: [everything] },
  { name: 'global-default', level: 'global-default', distinguisher: 'ByUser', subjects: { groups: ['system:unauthenticated', 'system:authenticated'] }, rules: [everything] },
  { name: 'catch-all', level: 'catch-all', distinguisher: 'ByUser', subjects: { groups: ['system:unauthenticated', 'system:authenticated'] }, rules: [everything] },
];

function subjectsMatch(s: Subjects, user: UserInfo): boolean {
  if (s.users?.includes(user.username) === true) return true;
  if (s.groups?.some((g) => user.groups.includes(g)) === true) return true;
  return s.kubeSystemServiceAccounts === true && user.username.startsWith('system:serviceaccount:kube-system:');
}

function listed(list: readonly string[] | '*', value: string): boolean {
  return list === '*' || list.includes(value);
}

function ruleMatches(r: ResourceRule, a: RequestAttributes): boolean {
  if (!listed(r.verbs, a.verb) || !listed(r.groups, a.group) || !listed(r.resources, a.resource)) return false;
  return a.namespace === '' ? r.clusterScope : listed(r.namespaces, a.namespace);
}

/** The FlowSchema a request matches first, its priority level and its flow. */
export function classify(a: RequestAttributes): Classification {
  for (const fs of flowSchemas) {
    if (!subjectsMatch(fs.subjects, a.user) || !fs.rules.some((r) => ruleMatches(r, a))) continue;
    const flow = fs.distinguisher === 'ByUser' ? a.user.username : fs.distinguisher === 'ByNamespace' ? a.namespace : '';
    return { flowSchema: fs.name, level: fs.level, flow };
  }
  // Every authenticated or unauthenticated user matches catch-all; a user in neither group still lands there.
  return { flowSchema: 'catch-all', level: 'catch-all', flow: a.user.username };
}

/** One level's waiting calls: a queue per flow, and the flows with calls waiting in turn order. */
class LevelQueues {
  readonly flows = new Map<string, Fifo<() => void>>();
  readonly turns = new Fifo<string>();
  /** Where the level is in the shared virtual time: the tag its next call starts at. */
  tag = 0;
  waiting = 0;

  constructor(readonly shares: number) {}

  push(flow: string, start: () => void): void {
    let q = this.flows.get(flow);
    if (q === undefined) {
      this.flows.set(flow, (q = new Fifo<() => void>()));
      this.turns.push(flow);
    }
    q.push(start);
    this.waiting++;
  }

  /** The next call of the flow whose turn it is; that flow goes to the back of the turns. */
  shift(): (() => void) | undefined {
    const flow = this.turns.shift();
    if (flow === undefined) return undefined;
    const q = this.flows.get(flow) as Fifo<() => void>;
    const start = q.shift();
    if (q.length > 0) this.turns.push(flow);
    else this.flows.delete(flow);
    this.waiting--;
    return start;
  }
}

/**
 * The server's queue of channel calls, shared by every channel so that all of them are ordered together.
 * Each event-loop turn starts at most `perTurn` calls: exempt ones first, then by weighted fair queuing
 * across the levels with calls waiting (each start advances its level's tag by 1/shares; the level with the
 * smallest tag goes next, and a level that had nothing waiting joins at the current virtual time, so idle
 * time earns no credit), and round robin across a level's flows.
 */
export class FlowDispatcher {
  private readonly exempt = new Fifo<() => void>();
  private readonly levels = new Map<PriorityLevel, LevelQueues>();
  private virtualTime = 0;
  private scheduled = false;

  /** A call costs 50-300 µs, so a turn of 128 stays within about 10-40 ms. */
  constructor(private readonly perTurn = 128) {}

  /** Queues `start` (it runs in a later turn, in the order above). */
  submit(c: Pick<Classification, 'level' | 'flow'>, start: () => void): void {
    if (c.level === 'exempt') this.exempt.push(start);
    else {
      let q = this.levels.get(c.level);
      if (q === undefined) this.levels.set(c.level, (q = new LevelQueues(nominalConcurrencyShares[c.level])));
      if (q.waiting === 0) q.tag = Math.max(q.tag, this.virtualTime);
      q.push(c.flow, start);
    }
    this.schedule();
  }

  /** Calls waiting to be started. */
  get waiting(): number {
    let n = this.exempt.length;
    for (const q of this.levels.values()) n += q.waiting;
    return n;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.startSome());
  }

  private next(): (() => void) | undefined {
    const exempt = this.exempt.shift();
    if (exempt !== undefined) return exempt;
    let best: LevelQueues | undefined;
    for (const q of this.levels.values()) if (q.waiting > 0 && (best === undefined || q.tag < best.tag)) best = q;
    if (best === undefined) return undefined;
    this.virtualTime = best.tag;
    best.tag += 1 / best.shares;
    return best.shift();
  }

  private startSome(): void {
    this.scheduled = false;
    for (let i = 0; i < this.perTurn; i++) {
      const start = this.next();
      if (start === undefined) return;
      start();
    }
    if (this.waiting > 0) this.schedule();
  }
}
