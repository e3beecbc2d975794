/**
 * Where the project's data files live at run time. Data (discovery documents, OpenAPI, catalogs) stays in
 * the source tree and is read from there by the compiled code in `dist/`, so nothing has to be copied.
 */
import { fileURLToPath } from 'node:url';
import { dirname, join, sep } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));

/** The repository (package) root: `dist/src/util/` or `src/util/` lead back to it. */
export const packageRoot: string = here.includes(`${sep}dist${sep}src${sep}`)
  ? join(here, '..', '..', '..')
  : join(here, '..', '..');

/** A path under the source tree, e.g. `sourcePath('apiserver', 'discovery', 'data')`. */
export function sourcePath(...parts: string[]): string {
  return join(packageRoot, 'src', ...parts);
}
