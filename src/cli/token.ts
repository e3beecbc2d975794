/**
 * `kubemix token create|list|delete` (kubeadm token): bootstrap token Secrets in kube-system, reached with
 * `--kubeconfig`, else `$KUBECONFIG`, else `<data-dir>/admin.conf`.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Secret } from 'kubernetes-types/core/v1.js';
import { loadKubeconfig } from '../client/kubeconfig.js';
import { HttpClient } from '../client/http-client.js';
import { resources } from '../api/resources.js';
import { isNotFound } from '../api/errors.js';
import { caCertHash } from '../bootstrap/pki.js';
import {
  bootstrapTokenIdPattern,
  defaultTokenTtlMs,
  formatToken,
  generateToken,
  keys,
  parseDuration,
  parseToken,
  secretGroups,
  secretName,
  secretTypeBootstrapToken,
  secretUsages,
  secretValue,
  tokenSecret,
} from '../bootstrap/token.js';
import { parseCommandFlags } from './_flags.js';

const help = `Manage bootstrap tokens.

Usage:
  kubemix token create [--ttl DURATION] [--print-join-command] [--description TEXT] [--usages U,...] [--groups G,...]
  kubemix token list
  kubemix token delete TOKEN|ID...

Flags (all subcommands):
  --kubeconfig FILE    the admin kubeconfig (default $KUBECONFIG, else <data-dir>/admin.conf)
  --data-dir DIR       the cluster's data dir (default ~/.kubemix/kubeadm)
`;

/** `duration.ShortHumanDuration`. */
export function shortHumanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 24) return `${hours}h`;
  if (hours < 24 * 365) return `${Math.trunc(hours / 24)}d`;
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** Go's text/tabwriter with kubeadm's settings (minwidth 10, tabwidth 4, padding 3, padchar ' '). */
export function tabwrite(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const r of rows) {
    r.forEach((cell, i) => {
      if (i < r.length - 1) widths[i] = Math.max(widths[i] ?? 0, Math.max(10, cell.length + 3));
    });
  }
  return rows.map((r) => r.map((cell, i) => (i < r.length - 1 ? cell.padEnd(widths[i] ?? 0) : cell)).join('')).join('\n') + '\n';
}

function client(kubeconfig: string): { client: HttpClient; server: string; caPem: string } {
  const k = loadKubeconfig(kubeconfig);
  const { contextName: _c, clusterName: _cl, userName: _u, namespace: _n, ...opts } = k;
  const ca = k.ca;
  if (ca === undefined) throw new Error(`kubeconfig ${kubeconfig}: the cluster has no certificate-authority-data`);
  return { client: new HttpClient(opts), server: k.server, caPem: Buffer.from(ca).toString('utf8') };
}

export async function runToken(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const flags = parseCommandFlags({ command: 'kubemix token', help, stderr: (t) => process.stderr.write(t) }, 
    rest,
    {
      kubeconfig: { type: 'string' },
      'data-dir': { type: 'string' },
      ttl: { type: 'string' },
      'print-join-command': { type: 'boolean' },
      description: { type: 'string' },
      usages: { type: 'string' },
      groups: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    true,
  );
  if (flags === undefined) return 2;
  const v = flags.values;
  if (v.help === true || sub === undefined || sub === 'help') {
    process.stdout.write(help);
    return sub === undefined ? 2 : 0;
  }
  const kubeconfig = resolve(v.kubeconfig ?? process.env['KUBECONFIG']?.split(':')[0] ?? join(v['data-dir'] ?? join(homedir(), '.kubemix', 'kubeadm'), 'admin.conf'));
  const { client: c, server, caPem } = client(kubeconfig);
  switch (sub) {
    case 'create': {
      const ttlMs = v.ttl === undefined ? defaultTokenTtlMs : parseDuration(v.ttl);
      if (ttlMs === undefined) {
        process.stderr.write(`kubemix token create: invalid argument "${v.ttl ?? ''}" for "--ttl" flag: time: invalid duration "${v.ttl ?? ''}"\n`);
        return 2;
      }
      const given = flags.positionals[0];
      const token = given !== undefined ? parseToken(given) : generateToken();
      if (token === undefined) {
        process.stderr.write(`kubemix token create: the bootstrap token "${given ?? ''}" was not of the form "\\A([a-z0-9]{6})\\.([a-z0-9]{16})\\z"\n`);
        return 1;
      }
      const list = (s: string | undefined): string[] | undefined => (s === undefined ? undefined : s.split(',').map((x) => x.trim()).filter((x) => x !== ''));
      const usages = list(v.usages);
      const groups = list(v.groups);
      await c.create(resources.secrets, tokenSecret({ token, ttlMs, ...(v.description !== undefined ? { description: v.description } : {}), ...(usages !== undefined ? { usages } : {}), ...(groups !== undefined ? { groups } : {}) }));
      if (v['print-join-command'] === true) {
        process.stdout.write(`kubemix join ${server.replace(/^https:\/\//, '')} --token ${formatToken(token)} --discovery-token-ca-cert-hash ${caCertHash(caPem)} \n`);
      } else {
        process.stdout.write(`${formatToken(token)}\n`);
      }
      return 0;
    }
    case 'list': {
      const secrets = await c.list<Secret>(resources.secrets, { namespace: 'kube-system' });
      const rows: string[][] = [['TOKEN', 'TTL', 'EXPIRES', 'USAGES', 'DESCRIPTION', 'EXTRA GROUPS']];
      for (const s of secrets.items) {
        if (s.type !== secretTypeBootstrapToken) continue;
        const id = secretValue(s, keys.tokenId);
        const secret = secretValue(s, keys.tokenSecret);
        if (id === undefined || secret === undefined) continue;
        const exp = secretValue(s, keys.expiration);
        let ttl = '<forever>';
        let expires = '<never>';
        if (exp !== undefined && exp !== '') {
          ttl = shortHumanDuration(Date.parse(exp) - Date.now());
          expires = exp;
        }
        const desc = secretValue(s, keys.description);
        rows.push([formatToken({ id, secret }), ttl, expires, secretUsages(s).join(','), desc !== undefined && desc !== '' ? desc : '<none>', secretGroups(s).join(',')]);
      }
      process.stdout.write(tabwrite(rows));
      return 0;
    }
    case 'delete': {
      if (flags.positionals.length === 0) {
        process.stderr.write('kubemix token delete: missing argument; \'token delete\' is missing a bootstrap token ID or token\n');
        return 2;
      }
      for (const arg of flags.positionals) {
        const id = parseToken(arg)?.id ?? (bootstrapTokenIdPattern.test(arg) ? arg : undefined);
        if (id === undefined) {
          process.stderr.write(`kubemix token delete: given token didn't match pattern "\\A([a-z0-9]{6})\\z" or "\\A([a-z0-9]{6})\\.([a-z0-9]{16})\\z"\n`);
          return 1;
        }
        try {
          await c.delete(resources.secrets, secretName(id), { namespace: 'kube-system' });
        } catch (e) {
          if (isNotFound(e)) {
            process.stderr.write(`kubemix token delete: failed to delete bootstrap token with ID "${id}": secrets "${secretName(id)}" not found\n`);
            return 1;
          }
          throw e;
        }
        process.stdout.write(`bootstrap token "${id}" deleted\n`);
      }
      return 0;
    }
    default:
      process.stderr.write(`kubemix token: unknown command "${sub}"\n\n${help}`);
      return 2;
  }
}
