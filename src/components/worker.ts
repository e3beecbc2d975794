/**
 * The components thread's entry: runs the controller manager and the scheduler against the main thread's
 * API server through a `PortConnection`, each with its own user, until told to stop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ControllerManager } from '../controllers/manager.js';
import { Scheduler } from '../scheduler/scheduler.js';
import { PortConnection, type Port } from './channel.js';
import { componentsThreadNiceness, lowerThreadPriority } from '../util/thread-priority.js';
import type { ComponentsConfig, ControlMessage } from './components.js';

async function main(port: Port, config: ComponentsConfig): Promise<void> {
  lowerThreadPriority(componentsThreadNiceness);
  const conn = new PortConnection(port);
  const logger =
    (component: string) =>
    (message: string, err?: unknown): void =>
      port.postMessage({ t: 'log', message: `${component}: ${message}${err === undefined ? '' : `: ${err instanceof Error ? err.message : JSON.stringify(err)}`}` } satisfies ControlMessage);
  const controllers = new ControllerManager({
    ...config.controllers,
    client: conn.client(config.controllerManagerUser),
    leaderElect: false,
    log: logger('controller-manager'),
  });
  const scheduler = new Scheduler({ client: conn.client(config.schedulerUser), log: logger('scheduler') });
  const onControl = (m: unknown): void => {
    if ((m as ControlMessage | null)?.t !== 'stop') return;
    port.off('message', onControl);
    void (async () => {
      await scheduler.stop();
      await controllers.stop();
      conn.close();
      port.postMessage({ t: 'stopped' } satisfies ControlMessage);
    })();
  };
  port.on('message', onControl);
  controllers.start();
  scheduler.start();
  port.postMessage({ t: 'started' } satisfies ControlMessage);
}

if (parentPort !== null) void main(parentPort, workerData as ComponentsConfig);
