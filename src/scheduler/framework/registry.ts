/**
 * The plugin registry: an explicit map from plugin name to factory (runtime.Registry). Registering a
 * name twice throws; there is no discovery or import side effect.
 */
import type { Handle, Plugin } from './interfaces.js';

/** Builds a plugin for one profile. `args` is the plugin's configuration, or undefined for defaults. */
export type PluginFactory = (args: unknown, handle: Handle) => Plugin;

export class Registry {
  private readonly factories = new Map<string, PluginFactory>();

  constructor(entries: Readonly<Record<string, PluginFactory>> = {}) {
    for (const [name, f] of Object.entries(entries)) this.register(name, f);
  }

  register(name: string, factory: PluginFactory): void {
    if (this.factories.has(name)) throw new Error(`a plugin named ${name} already exists`);
    this.factories.set(name, factory);
  }

  unregister(name: string): void {
    if (!this.factories.delete(name)) throw new Error(`no plugin named ${name} exists`);
  }

  get(name: string): PluginFactory | undefined {
    return this.factories.get(name);
  }

  /** A new registry with both sets of entries; a name in both throws. */
  merge(other: Registry): Registry {
    const r = new Registry();
    for (const [n, f] of this.factories) r.register(n, f);
    for (const [n, f] of other.factories) r.register(n, f);
    return r;
  }

  names(): string[] {
    return [...this.factories.keys()];
  }
}
