/**
 * TokenCleaner (pkg/controller/bootstrap/tokencleaner.go): bootstrap token Secrets in `kube-system` are
 * deleted once their `expiration` has passed (the delete is preconditioned on the Secret's UID), and
 * looked at again when they will expire.
 */
import type { Secret } from 'kubernetes-types/core/v1.js';
import { isNotFound, isConflict } from '../../api/errors.js';
import { resources } from '../../api/resources.js';
import { runWorkers, type Controller, type ControllerContext } from '../_context.js';
import { names } from '../names.js';
import { hasExpired, keys, secretTypeBootstrapToken, secretValue } from '../../bootstrap/token.js';

export const tokenSecretNamespace = 'kube-system';

export class TokenCleaner implements Controller {
  readonly name = names.TokenCleaner;
  private readonly queue;
  private readonly secrets;

  constructor(private readonly ctx: ControllerContext) {
    this.queue = ctx.newQueue();
    this.secrets = ctx.informer<Secret>(resources.secrets);
  }

  start(): void {
    const enqueue = (s: Secret): void => {
      if (s.metadata?.namespace === tokenSecretNamespace && s.type === secretTypeBootstrapToken) this.queue.add(`${tokenSecretNamespace}/${s.metadata.name ?? ''}`);
    };
    this.secrets.addHandlers({ onAdd: enqueue, onUpdate: (_, s) => enqueue(s) });
    void runWorkers(this.queue, (key) => this.sync(key));
  }

  stop(): void {
    this.queue.shutDown();
  }

  async sync(key: string): Promise<void> {
    const s = this.secrets.get(key);
    if (s === undefined || s.metadata?.deletionTimestamp !== undefined) return;
    const now = new Date(this.ctx.clock.now());
    if (hasExpired(s, now)) {
      try {
        await this.ctx.client.delete(resources.secrets, s.metadata?.name ?? '', {
          namespace: tokenSecretNamespace,
          ...(s.metadata?.uid !== undefined ? { preconditions: { uid: s.metadata.uid } } : {}),
        });
      } catch (e) {
        if (!isNotFound(e) && !isConflict(e)) throw e;
      }
      return;
    }
    const exp = Date.parse(secretValue(s, keys.expiration) ?? '');
    if (!Number.isNaN(exp)) this.queue.addAfter(key, Math.max(0, exp - now.getTime()) + 1000);
  }
}

export function create(ctx: ControllerContext): Controller {
  return new TokenCleaner(ctx);
}
