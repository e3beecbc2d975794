/**
 * BootstrapSigner (pkg/controller/bootstrap/bootstrapsigner.go): keeps the `cluster-info` ConfigMap in
 * `kube-public` signed with a detached JWS per usable bootstrap token (`jws-kubeconfig-<id>`), adding
 * signatures for new tokens and dropping those of deleted, expired or non-signing ones. It lives beside the
 * token cleaner: both follow the bootstrap token Secrets.
 */
import type { ConfigMap, Secret } from 'kubernetes-types/core/v1.js';
import { isNotFound, isConflict } from '../../api/errors.js';
import { resources } from '../../api/resources.js';
import { runWorkers, type Controller, type ControllerContext } from '../_context.js';
import { names } from '../names.js';
import { hasExpired, keys, secretTypeBootstrapToken, secretValue } from '../../bootstrap/token.js';
import { computeDetachedSignature } from '../../bootstrap/jws.js';
import { clusterInfoName, clusterInfoNamespace, jwsSignatureKeyPrefix, kubeconfigKey } from '../../bootstrap/cluster-info.js';

const theKey = `${clusterInfoNamespace}/${clusterInfoName}`;

export class BootstrapSigner implements Controller {
  readonly name = names.BootstrapSigner;
  private readonly queue;
  private readonly secrets;
  private readonly configMaps;

  constructor(private readonly ctx: ControllerContext) {
    this.queue = ctx.newQueue();
    this.secrets = ctx.informer<Secret>(resources.secrets);
    this.configMaps = ctx.informer<ConfigMap>(resources.configmaps);
  }

  start(): void {
    const onSecret = (s: Secret): void => {
      if (s.metadata?.namespace === 'kube-system' && s.type === secretTypeBootstrapToken) this.queue.add(theKey);
    };
    const onConfigMap = (c: ConfigMap): void => {
      if (c.metadata?.namespace === clusterInfoNamespace && c.metadata.name === clusterInfoName) this.queue.add(theKey);
    };
    this.secrets.addHandlers({ onAdd: onSecret, onUpdate: (_, s) => onSecret(s), onDelete: onSecret });
    this.configMaps.addHandlers({ onAdd: onConfigMap, onUpdate: (_, c) => onConfigMap(c) });
    void runWorkers(this.queue, () => this.sync());
  }

  stop(): void {
    this.queue.shutDown();
  }

  /** The signatures cluster-info should carry now: token id -> detached JWS. */
  private signatures(content: string): Map<string, string> {
    const out = new Map<string, string>();
    const now = new Date(this.ctx.clock.now());
    let next = Number.POSITIVE_INFINITY;
    for (const s of this.secrets.list()) {
      if (s.metadata?.namespace !== 'kube-system' || s.type !== secretTypeBootstrapToken || s.metadata.deletionTimestamp !== undefined) continue;
      if (secretValue(s, `${keys.usagePrefix}signing`) !== 'true' || hasExpired(s, now)) continue;
      const id = secretValue(s, keys.tokenId);
      const secret = secretValue(s, keys.tokenSecret);
      if (id === undefined || secret === undefined) continue;
      out.set(id, computeDetachedSignature(content, id, secret));
      const exp = Date.parse(secretValue(s, keys.expiration) ?? '');
      if (!Number.isNaN(exp)) next = Math.min(next, exp);
    }
    if (Number.isFinite(next)) this.queue.addAfter(theKey, Math.max(0, next - now.getTime()) + 1000);
    return out;
  }

  async sync(): Promise<void> {
    const cm = this.configMaps.get(theKey);
    const content = cm?.data?.[kubeconfigKey];
    if (cm === undefined || content === undefined) return;
    const data: Record<string, string> = {};
    for (const [k, v] of Object.entries(cm.data ?? {})) if (!k.startsWith(jwsSignatureKeyPrefix)) data[k] = v;
    for (const [id, sig] of this.signatures(content)) data[`${jwsSignatureKeyPrefix}${id}`] = sig;
    const before = JSON.stringify(Object.entries(cm.data ?? {}).sort());
    if (JSON.stringify(Object.entries(data).sort()) === before) return;
    try {
      await this.ctx.client.update(resources.configmaps, { ...cm, data });
    } catch (e) {
      if (isNotFound(e)) return;
      if (isConflict(e)) {
        this.queue.addAfter(theKey, 100);
        return;
      }
      throw e;
    }
  }
}

export function create(ctx: ControllerContext): Controller {
  return new BootstrapSigner(ctx);
}
