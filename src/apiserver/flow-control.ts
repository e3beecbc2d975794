/**
 * API Priority and Fairness for the calls the components and the node host send over their channels: each
 * call is classified by kube-apiserver's suggested FlowSchemas into a priority level and a flow, and the
 * waiting calls are started in the order APF's fair queuing gives them. Levels share the server by their
 * nominal concurrency shares (a level with fewer calls waiting than its share starts them at once), and
 * within a level the flows take turns. So, as on a real server, node heartbeats (`system-node-high`: Node
 * status and Leases) do not wait behind thousands of kubelet events and pod status writes, and one busy
 * flow does not hold back the others.
 *
 * Calls hold a seat from their start to their answer, and at most the server's concurrency limit of them
 * (600: kube-apiserver's `--max-requests-inflight` 400 plus `--max-mutating-requests-inflight` 200) hold
 * one at a time; exempt calls hold none. So a store slower than the server (etcd under load) holds the
 * calls beyond that in the fair queues, where a Lease renewal goes ahead of the events waiting, and not in
 * the store's own first-come queue behind all of them.
 *
 * What is not modelled: the division of the seats among the levels (each level's nominal and lendable
 * share): here a level may use every seat the others leave free, as if each lent all of its own; queue
 * length limits and the 429s they cause; and HTTP requests, which are served as they arrive.
 */
import type { UserInfo } from './registry/policy.js';
import { Fifo } from '../util/fifo.js';
import type { PolicyRulesWithSubjects, ResourcePolicyRule, Subject } from 'kubernetes-types/flowcontrol/v1.js';
import { bootstrapFlowSchemas, bootstrapPriorityLevelConfigurations, compareFlowSchemas } from './flowcontrol-bootstrap.js';

const limitedLevels = ['node-high', 'system', 'leader-election', 'workload-high', 'workload-low', 'global-default', 'catch-all'] as const;
type LimitedLevel = (typeof limitedLevels)[number];
export type PriorityLevel = 'exempt' | LimitedLevel;

function bootstrapShares(level: LimitedLevel): number {
  const shares = bootstrapPriorityLevelConfigurations.find((p) => p.metadata?.name === level)?.spec?.limited?.nominalConcurrencyShares;
  if (shares === undefined) throw new Error(`flow-control: the bootstrap PriorityLevelConfiguration ${level} has no limited nominalConcurrencyShares`);
  return shares;
}

/** `nominalConcurrencyShares` of the suggested and mandatory PriorityLevelConfigurations the server creates. */
export const nominalConcurrencyShares: Readonly<Record<LimitedLevel, number>> = Object.fromEntries(
  limitedLevels.map((level) => [level, bootstrapShares(level)]),
) as Record<LimitedLevel, number>;

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

/**
 * A FlowSchema as classification reads it: the bootstrap objects (`flowcontrol-bootstrap.ts`) in matching
 * precedence order (ties by name), each rule's subjects and resource rules (non-resource rules never match
 * the channels' calls, which are all resource requests).
 */
interface Matcher {
  name: string;
  level: PriorityLevel;
  distinguisher: string | undefined;
  rules: readonly PolicyRulesWithSubjects[];
}

const matchers: readonly Matcher[] = [...bootstrapFlowSchemas]
  .sort(compareFlowSchemas)
  .map((fs) => ({
    name: fs.metadata?.name ?? '',
    level: (fs.spec?.priorityLevelConfiguration.name ?? 'catch-all') as PriorityLevel,
    distinguisher: fs.spec?.distinguisherMethod?.type,
    rules: fs.spec?.rules ?? [],
  }));

/** `matchesASubject` (upstream's `rule_wrapper`/`matching.go`): a user, a group, or a service account. */
function subjectMatches(s: Subject, user: UserInfo): boolean {
  switch (s.kind) {
    case 'User':
      return s.user?.name === '*' || s.user?.name === user.username;
    case 'Group':
      return s.group?.name === '*' || user.groups.includes(s.group?.name ?? '');
    case 'ServiceAccount': {
      const prefix = `system:serviceaccount:${s.serviceAccount?.namespace ?? ''}:`;
      if (!user.username.startsWith(prefix)) return false;
      const name = s.serviceAccount?.name ?? '';
      return name === '*' || user.username === prefix + name;
    }
    default:
      return false;
  }
}

function listed(list: readonly string[], value: string): boolean {
  return list.includes('*') || list.includes(value);
}

function resourceRuleMatches(r: ResourcePolicyRule, a: RequestAttributes): boolean {
  if (!listed(r.verbs, a.verb) || !listed(r.apiGroups, a.group) || !listed(r.resources, a.resource)) return false;
  return a.namespace === '' ? r.clusterScope === true : listed(r.namespaces ?? [], a.namespace);
}

/** Whether one of a FlowSchema's rules matches both a subject and a resource rule (every call is classified: no closures). */
function matchesSchema(m: Matcher, a: RequestAttributes): boolean {
  for (const r of m.rules) {
    let subject = false;
    for (const s of r.subjects) {
      if (subjectMatches(s, a.user)) {
        subject = true;
        break;
      }
    }
    if (!subject) continue;
    for (const rr of r.resourceRules ?? []) if (resourceRuleMatches(rr, a)) return true;
  }
  return false;
}

/** The FlowSchema a request matches first, its priority level and its flow. */
export function classify(a: RequestAttributes): Classification {
  for (const m of matchers) {
    if (!matchesSchema(m, a)) continue;
    const flow = m.distinguisher === 'ByUser' ? a.user.username : m.distinguisher === 'ByNamespace' ? a.namespace : '';
    return { flowSchema: m.name, level: m.level, flow };
  }
  // Every authenticated or unauthenticated user matches catch-all; a user in neither group still lands there.
  return { flowSchema: 'catch-all', level: 'catch-all', flow: a.user.username };
}

/** One level's waiting calls: a queue per flow, and the flows with calls waiting in turn order. */
class LevelQueues {
  readonly flows = new Map<string, Fifo<StartCall>>();
  readonly turns = new Fifo<string>();
  /** Where the level is in the shared virtual time: the tag its next call starts at. */
  tag = 0;
  waiting = 0;

  constructor(readonly shares: number) {}

  push(flow: string, start: StartCall): void {
    let q = this.flows.get(flow);
    if (q === undefined) {
      this.flows.set(flow, (q = new Fifo<StartCall>()));
      this.turns.push(flow);
    }
    q.push(start);
    this.waiting++;
  }

  /** The next call of the flow whose turn it is; that flow goes to the back of the turns. */
  shift(): StartCall | undefined {
    const flow = this.turns.shift();
    if (flow === undefined) return undefined;
    const q = this.flows.get(flow) as Fifo<StartCall>;
    const start = q.shift();
    if (q.length > 0) this.turns.push(flow);
    else this.flows.delete(flow);
    this.waiting--;
    return start;
  }
}

/** kube-apiserver's total concurrency limit under APF: `--max-requests-inflight` (400) plus `--max-mutating-requests-inflight` (200). */
export const serverConcurrencyLimit = 600;

/** Starts a call; a call answered later returns the promise of its answer, and holds its seat until then. */
export type StartCall = () => void | PromiseLike<unknown>;

/**
 * The server's queue of channel calls, shared by every channel so that all of them are ordered together.
 * Each event-loop turn starts at most `perTurn` calls, and none that is not exempt while `seats` calls hold
 * a seat: exempt ones first, then by weighted fair queuing across the levels with calls waiting (each start
 * advances its level's tag by 1/shares; the level with the smallest tag goes next, and a level that had
 * nothing waiting joins at the current virtual time, so idle time earns no credit), and round robin across
 * a level's flows.
 */
export class FlowDispatcher {
  private readonly exempt = new Fifo<StartCall>();
  private readonly levels = new Map<PriorityLevel, LevelQueues>();
  private virtualTime = 0;
  private scheduled = false;
  private seated = 0;
  private readonly release = (): void => {
    this.seated--;
    if (this.waiting > 0) this.schedule();
  };

  /** A call costs 50-300 µs, so a turn of 128 stays within about 10-40 ms. */
  constructor(
    private readonly perTurn = 128,
    private readonly seats = serverConcurrencyLimit,
  ) {}

  /**
   * Queues `start` (it runs in a later turn, in the order above). A flow is a FlowSchema's and its
   * distinguisher's value together, as upstream's `hashFlowID(fsName, fDistinguisher)`: the scheduler's
   * bindings and a controller's creates in one namespace are two flows of `workload-high`, not one.
   */
  submit(c: Pick<Classification, 'flowSchema' | 'level' | 'flow'>, start: StartCall): void {
    if (c.level === 'exempt') this.exempt.push(start);
    else {
      let q = this.levels.get(c.level);
      if (q === undefined) this.levels.set(c.level, (q = new LevelQueues(nominalConcurrencyShares[c.level])));
      if (q.waiting === 0) q.tag = Math.max(q.tag, this.virtualTime);
      q.push(`${c.flowSchema} ${c.flow}`, start);
    }
    this.schedule();
  }

  /** Calls started and not yet answered that hold a seat. */
  get inFlight(): number {
    return this.seated;
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

  /** The call of the level whose turn it is by weighted fair queuing, if any is waiting. */
  private nextLimited(): StartCall | undefined {
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
      const exempt = this.exempt.shift();
      if (exempt !== undefined) {
        void exempt();
        continue;
      }
      // Every seat taken: the answer that frees one schedules the next turn.
      if (this.seated >= this.seats) return;
      const start = this.nextLimited();
      if (start === undefined) return;
      this.seated++;
      const answered = start();
      if (answered !== undefined) answered.then(this.release, this.release);
      else this.release();
    }
    if (this.waiting > 0) this.schedule();
  }
}
