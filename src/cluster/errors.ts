/** The error a bad cluster config gives: every problem found, one line each, prefixed with the file name. */

export class ClusterConfigError extends Error {
  override readonly name = 'ClusterConfigError';

  constructor(
    readonly fileName: string,
    /** One entry per problem, without the file name (`nodeGroups[1].os: Unsupported value: ...`). */
    readonly problems: readonly string[],
  ) {
    super(problems.map((p) => `${fileName}: ${p}`).join('\n'));
  }
}

export function isClusterConfigError(e: unknown): e is ClusterConfigError {
  return e instanceof ClusterConfigError;
}
