/** Flag parsing shared by the subcommands: node's parseArgs, with errors that name the flag. */
import { parseArgs, type ParseArgsConfig } from 'node:util';

export class UsageError extends Error {}

export function parseFlags<T extends NonNullable<ParseArgsConfig['options']>>(
  args: string[],
  options: T,
  allowPositionals = false,
): ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: boolean; strict: true }>> {
  try {
    return parseArgs({ args, options, allowPositionals, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** How a subcommand reports a usage error: `<command>: <message>`, a blank line, then its help. */
export interface CommandUsage {
  command: string;
  help: string;
  stderr: (text: string) => void;
}

/** `parseFlags` for a subcommand: a usage error is reported as `usage` says and answers undefined (exit 2). */
export function parseCommandFlags<T extends NonNullable<ParseArgsConfig['options']>>(
  usage: CommandUsage,
  args: string[],
  options: T,
  allowPositionals = false,
): ReturnType<typeof parseFlags<T>> | undefined {
  try {
    return parseFlags(args, options, allowPositionals);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    usage.stderr(`${usage.command}: ${e.message}\n\n${usage.help}`);
    return undefined;
  }
}

export type StoreChoice = { kind: 'sqlite' } | { kind: 'etcd'; endpoints: string[] };

/**
 * `--port`, `--store` and `--etcd-endpoints` as `up` and `init` take them: the values, or the usage error
 * to print (prefixed with the command) before exiting 2.
 */
export function parseServeFlags(
  command: string,
  v: { port?: string | undefined; store?: string | undefined; 'etcd-endpoints'?: string | undefined },
): { port: number; store: StoreChoice } | { error: string } {
  const port = v.port === undefined ? 6443 : Number(v.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) return { error: `kubemix ${command}: --port: invalid port "${v.port ?? ''}"` };
  const storeKind = v.store ?? 'sqlite';
  if (storeKind !== 'sqlite' && storeKind !== 'etcd') return { error: `kubemix ${command}: --store: must be sqlite or etcd, not "${storeKind}"` };
  const endpoints = (v['etcd-endpoints'] ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (storeKind === 'etcd' && endpoints.length === 0) return { error: `kubemix ${command}: --store etcd needs --etcd-endpoints` };
  return { port, store: storeKind === 'etcd' ? { kind: 'etcd', endpoints } : { kind: 'sqlite' } };
}
