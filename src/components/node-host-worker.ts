/**
 * The node host thread's entry: one `NodeHost` on a `PortConnection` client, driven by the calls of
 * `NodeHostThread` in the main thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { NodeHost } from '../node/agent.js';
import type { SimulatedNodeSpec } from '../node/kubelet/node-status.js';
import { PortConnection, type Port } from './channel.js';
import type { NodeHostCall, NodeHostNote, NodeHostWorkerData } from './node-host-thread.js';

function isCall(m: unknown): m is NodeHostCall {
  return (m as { t?: unknown } | null)?.t === 'nh-call';
}

function main(port: Port, data: NodeHostWorkerData): void {
  const conn = new PortConnection(port);
  let progress: ((registered: number, total: number) => void) | undefined;
  const host = new NodeHost({
    ...data.options,
    client: conn.client(data.user),
    onRegistered: (registered, total) => progress?.(registered, total),
    log: (message, err) =>
      port.postMessage({ t: 'nh-log', message: `node host: ${message}${err === undefined ? '' : `: ${err instanceof Error ? err.message : JSON.stringify(err)}`}` } satisfies NodeHostNote),
  });
  const run = async (m: NodeHostCall): Promise<unknown> => {
    const registered = (registered: number, total: number): void => port.postMessage({ t: 'nh-registered', id: m.id, registered, total } satisfies NodeHostNote);
    switch (m.method) {
      case 'start':
        progress = registered;
        try {
          await host.start();
        } finally {
          progress = undefined;
        }
        return undefined;
      case 'addNodes':
        await host.addNodes(m.args[0] as SimulatedNodeSpec[], registered);
        return undefined;
      case 'removeNodes':
        await host.removeNodes(m.args[0] as string[]);
        return undefined;
      case 'logs': {
        const [ns, pod, container, opts] = m.args as [string, string, string | null, { tailLines?: number; previous?: boolean; timestamps?: boolean }];
        return host.logs(ns, pod, container ?? undefined, opts);
      }
      case 'shutdown':
        await host.shutdown();
        conn.close();
        return undefined;
    }
  };
  port.on('message', (m: unknown) => {
    if (!isCall(m)) return;
    run(m).then(
      (value) => port.postMessage({ t: 'nh-result', id: m.id, value } satisfies NodeHostNote),
      (e: unknown) => port.postMessage({ t: 'nh-error', id: m.id, message: e instanceof Error ? e.message : String(e) } satisfies NodeHostNote),
    );
  });
}

if (parentPort !== null) main(parentPort, workerData as NodeHostWorkerData);
