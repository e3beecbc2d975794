/**
 * What a node reports in `status.nodeInfo` for the operating systems kubemix simulates. Windows values follow
 * the kubelet on Windows (semantics.md section 12): `osImage` is the registry's ProductName, `kernelVersion` is
 * `<major>.<minor>.<build>.<UBR>`. The UBRs match the simulated kubelet's defaults (src/node/kubelet/node-status.ts).
 */

export interface OsImage {
  readonly osImage: string;
  readonly kernelVersion: string;
  readonly containerRuntimeVersion: string;
}

/** The containerd release the simulated nodes report unless an AMI says otherwise. */
export const defaultContainerRuntimeVersion = 'containerd://1.7.24';

/** The kubelet version every simulated node reports (the Kubernetes release kubemix serves). */
export const defaultKubeletVersion = 'v1.32.0';

/** The Linux image of the native format and the default topology. */
export const defaultLinuxImage: OsImage = {
  osImage: 'Ubuntu 22.04.4 LTS',
  kernelVersion: '5.15.0-1057-aws',
  containerRuntimeVersion: defaultContainerRuntimeVersion,
};

/** The build a native Windows group gets when it names none: Windows Server 2022, the LTSC most clusters run. */
export const defaultWindowsBuild = '10.0.20348';

/** Known Windows Server builds: build -> [ProductName, UBR]. */
const windowsServerBuilds: Readonly<Record<string, readonly [string, number]>> = {
  '10.0.14393': ['Windows Server 2016 Datacenter', 7785],
  '10.0.17763': ['Windows Server 2019 Datacenter', 6532],
  '10.0.20348': ['Windows Server 2022 Datacenter', 2849],
  '10.0.25398': ['Windows Server Datacenter', 1425],
  '10.0.26100': ['Windows Server 2025 Datacenter', 2314],
};

/** `10.0.<build>`: the form of the `node.kubernetes.io/windows-build` label. */
export const windowsBuildPattern = /^10\.0\.[1-9][0-9]{4}$/;

/**
 * The image a Windows node of a build reports. Builds outside the table (semi-annual channel releases such as
 * 10.0.19042) report the generic SAC ProductName and UBR 1.
 */
export function windowsImage(build: string): OsImage {
  const known = windowsServerBuilds[build];
  return {
    osImage: known?.[0] ?? 'Windows Server Datacenter',
    kernelVersion: `${build}.${known?.[1] ?? 1}`,
    containerRuntimeVersion: defaultContainerRuntimeVersion,
  };
}
