#!/usr/bin/env node
/**
 * The `kubemix` command (contract: shared/spec/cli.md). Each subcommand lives in its own module and
 * returns an exit code; usage errors exit 2.
 */
import { runUp } from './up.js';
import { runNodes } from './nodes.js';
import { runInit } from './init.js';
import { runJoin } from './join.js';
import { runToken } from './token.js';
import { runCheckCommand } from './check.js';
import { tuneGarbageCollection } from '../util/gc-settings.js';
import { tuneCompiler } from '../util/compiler-settings.js';

const usage = `kubemix: Kubernetes-compatible heterogeneous clusters (Linux and Windows, amd64 and arm64) without the machines

Usage:
  kubemix up [--config FILE] [--data-dir DIR] [--port N] [--kubeconfig FILE] [--store sqlite|etcd] [--etcd-endpoints URLS]
  kubemix init [--data-dir DIR] [--port N] [--node-name NAME] [--advertise-address IP] [--pod-network-cidr CIDR] [--service-cidr CIDR]
  kubemix join HOST:PORT --token TOKEN --discovery-token-ca-cert-hash sha256:HEX --node-name NAME [--os --arch --windows-build --count K ...]
  kubemix check -f PATH [-f PATH...] [--cluster FILE | --kubeconfig FILE] [-o table|json|junit]
  kubemix token create|list|delete [--ttl DURATION] [--print-join-command] [--kubeconfig FILE | --data-dir DIR]
  kubemix nodes add|remove --group G --count N [--kubeconfig FILE | --data-dir DIR]

Run 'kubemix <command> --help' for a command's flags.
`;

export async function main(argv: string[]): Promise<number> {
  tuneGarbageCollection();
  tuneCompiler();
  const [command, ...rest] = argv;
  switch (command) {
    case 'up':
      return runUp(rest);
    case 'nodes':
      return runNodes(rest);
    case 'init':
      return runInit(rest);
    case 'join':
      return runJoin(rest);
    case 'token':
      return runToken(rest);
    case 'check':
      return runCheckCommand(rest);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(usage);
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`kubemix: unknown command "${command}"\n\n${usage}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`kubemix: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
