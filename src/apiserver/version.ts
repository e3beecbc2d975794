/** What `/version` answers: a Kubernetes 1.32 server (kubectl warns about skew against other versions). */
export const kubernetesVersion = 'v1.32.4';

export function versionInfo(): Record<string, string> {
  return {
    major: '1',
    minor: '32',
    gitVersion: kubernetesVersion,
    gitCommit: '59526cd4867447956156ae3a602fcbac5d9b6b5c',
    gitTreeState: 'clean',
    buildDate: '2025-04-22T16:03:37Z',
    goVersion: 'go1.23.6',
    compiler: 'gc',
    platform: `linux/${process.arch === 'arm64' ? 'arm64' : 'amd64'}`,
  };
}
