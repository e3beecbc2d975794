/**
 * Where the project's data files live at run time. Data (discovery documents, OpenAPI, catalogs) stays in
 * the source tree and is read from there by the compiled code in `dist/`, so nothing has to be copied.
 */
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The repository (package) root: the nearest folder above this module that holds package.json. */
export const packageRoot: string = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('kubemix: cannot find package.json above the compiled sources');
    dir = up;
  }
  return dir;
})();

/** A path under the source tree, e.g. `sourcePath('apiserver', 'discovery', 'data')`. */
export function sourcePath(...parts: string[]): string {
  return join(packageRoot, 'src', ...parts);
}
