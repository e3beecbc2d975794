/** Admission plugin names, as kube-apiserver's `--enable-admission-plugins` spells them. */
export const names = {
  NamespaceLifecycle: 'NamespaceLifecycle',
  LimitRanger: 'LimitRanger',
  ServiceAccount: 'ServiceAccount',
  NodeRestriction: 'NodeRestriction',
  TaintNodesByCondition: 'TaintNodesByCondition',
  PodSecurity: 'PodSecurity',
  Priority: 'Priority',
  DefaultTolerationSeconds: 'DefaultTolerationSeconds',
  DefaultStorageClass: 'DefaultStorageClass',
  StorageObjectInUseProtection: 'StorageObjectInUseProtection',
  PersistentVolumeClaimResize: 'PersistentVolumeClaimResize',
  RuntimeClass: 'RuntimeClass',
  CertificateSubjectRestriction: 'CertificateSubjectRestriction',
  DefaultIngressClass: 'DefaultIngressClass',
  ValidatingAdmissionPolicy: 'ValidatingAdmissionPolicy',
  ResourceQuota: 'ResourceQuota',
} as const;
