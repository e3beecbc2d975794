/**
 * `kubemix check`: where every workload of a set of manifests lands on a heterogeneous cluster, and why not
 * (contract: shared/spec/cli.md). Exit 0 when every pod can be placed and run, 1 when not, 2 for unusable
 * input (the file and the reason on stderr).
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { defaultCluster, isClusterConfigError, loadClusterConfig } from '../cluster/index.js';
import { httpClientFromKubeconfig, loadKubeconfig } from '../client/kubeconfig.js';
import { CatalogFileError, createDefaultCatalog, loadCatalogFile } from '../node/runtime/index.js';
import { InputError, clusterFromClient, clusterFromSpec, loadManifests, outputFormats, renderReport, runCheck, type ClusterView, type OutputFormat } from '../check/index.js';
import { parseCommandFlags } from './_flags.js';

const help = `Report where the workloads of a set of manifests land on a heterogeneous cluster, and why not.

Usage:
  kubemix check -f PATH [-f PATH...] [--cluster FILE | --kubeconfig FILE] [-o table|json|junit]

Examples:
  helm template my-release ./chart | kubemix check -f -
  kubemix check -f deploy/ --cluster cluster.yaml -o junit > check.xml

Flags:
  -f, --filename PATH      manifest file, folder (its .yaml/.yml/.json files, recursively) or - for stdin; repeatable
      --cluster FILE       cluster config (kubemix.dev/v1alpha1 Cluster or eksctl ClusterConfig); default topology when absent
      --kubeconfig FILE    simulate on the nodes, RuntimeClasses and pods of a live cluster (read-only)
      --context NAME       kubeconfig context (default: current-context)
      --images FILE        extra image catalog entries (as for the simulated registry)
  -o, --output FORMAT      table (default), json or junit

Exit status: 0 every pod can be placed and run; 1 some cannot; 2 unusable input.
`;

export interface CheckCommandIO {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  stdin: () => string;
  /** Colour the table (stdout is a terminal and NO_COLOR is unset). */
  color: boolean;
}

function processIO(): CheckCommandIO {
  return {
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    stdin: () => readFileSync(0, 'utf8'),
    color: process.stdout.isTTY && process.env['NO_COLOR'] === undefined,
  };
}

export async function runCheckCommand(args: string[], io: CheckCommandIO = processIO()): Promise<number> {
  const flags = parseCommandFlags({ command: 'kubemix check', help, stderr: (t) => io.stderr(t) }, args, {
    filename: { type: 'string', short: 'f', multiple: true },
    cluster: { type: 'string' },
    kubeconfig: { type: 'string' },
    context: { type: 'string' },
    images: { type: 'string' },
    output: { type: 'string', short: 'o' },
    help: { type: 'boolean', short: 'h' },
  });
  if (flags === undefined) return 2;
  const v = flags.values;
  if (v.help === true) {
    io.stdout(help);
    return 0;
  }
  const format = (v.output ?? 'table') as OutputFormat;
  if (!outputFormats.includes(format)) {
    io.stderr(`kubemix check: unknown output format "${v.output ?? ''}" (want table, json or junit)\n`);
    return 2;
  }
  if (v.cluster !== undefined && v.kubeconfig !== undefined) {
    io.stderr('kubemix check: --cluster and --kubeconfig exclude each other\n');
    return 2;
  }
  try {
    const manifests = loadManifests(v.filename ?? [], io.stdin);
    const catalog = createDefaultCatalog(v.images !== undefined ? loadCatalogFile(v.images) : []);
    let cluster: ClusterView;
    if (v.kubeconfig !== undefined) {
      const path = v.kubeconfig;
      const ctx = v.context !== undefined ? { context: v.context } : {};
      let name: string;
      try {
        name = loadKubeconfig(path, ctx).clusterName;
      } catch (e) {
        throw new InputError(path, e instanceof Error ? e.message : String(e));
      }
      try {
        cluster = await clusterFromClient(httpClientFromKubeconfig(path, ctx), name);
      } catch (e) {
        throw new InputError(path, `cannot read the cluster: ${e instanceof Error ? e.message : String(e)}`);
      }
    } else if (v.cluster !== undefined) {
      cluster = clusterFromSpec(await loadClusterConfig(v.cluster), 'config');
    } else {
      cluster = clusterFromSpec(defaultCluster(), 'default');
    }
    const report = await runCheck({ manifests, cluster, catalog });
    io.stdout(renderReport(report, format, { color: io.color }));
    return report.summary.ok ? 0 : 1;
  } catch (e) {
    if (e instanceof InputError) {
      io.stderr(`kubemix check: ${e.file}: ${e.reason}\n`);
      return 2;
    }
    if (isClusterConfigError(e) || e instanceof CatalogFileError) {
      io.stderr(`kubemix check: ${e.message}\n`);
      return 2;
    }
    if (e instanceof Error && 'code' in e && (e as NodeJS.ErrnoException).code === 'ENOENT') {
      io.stderr(`kubemix check: ${(e as NodeJS.ErrnoException).path ?? basename(String(v.cluster ?? v.images ?? ''))}: no such file or directory\n`);
      return 2;
    }
    throw e;
  }
}
