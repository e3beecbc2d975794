/**
 * What the HPA controller's metrics queries answer in a cluster without metrics APIs: kubemix serves no
 * metrics.k8s.io, custom.metrics.k8s.io or external.metrics.k8s.io (no metrics-server, no adapter), exactly
 * like a fresh kubeadm cluster. Each function here is the upstream function of the same name reduced to the
 * branch it takes then, and returns its error text word for word (`pkg/controller/podautoscaler/metrics/
 * client.go`, `replica_calculator.go` and the client-go / k8s.io/metrics clients below them, v1.32).
 *
 * No query can yield a value, so nothing computes replicas from values: upstream's `groupPods`,
 * `calculatePodRequests`, the utilization ratios and the tolerance are not ported. Were a metrics API ever
 * served, those would be the missing piece, and these functions the place to call it.
 */
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import type { CrossVersionObjectReference } from 'kubernetes-types/autoscaling/v2.js';
import { labelSelectorAsSelector, SelectorParseError } from '../../api/labels.js';

/**
 * client-go's error for a 404 whose body is not a Status (`newUnstructuredResponseError` →
 * `NewGenericServerResponse`): what kube-apiserver answers for a path under an API group it does not serve.
 */
function notFoundFromServer(resource: string, group: string): string {
  return `the server could not find the requested resource (get ${resource}.${group})`;
}

/** `resourceMetricsClient.GetResourceMetric`: the PodMetrics list of metrics.k8s.io/v1beta1 fails. */
export function getResourceMetric(): string {
  return `unable to fetch metrics from resource metrics API: ${notFoundFromServer('pods', 'metrics.k8s.io')}`;
}

/**
 * `customMetricsClient.GetRawMetric` / `GetObjectMetric`: the custom metrics client asks discovery for the
 * preferred version of custom.metrics.k8s.io first (k8s.io/metrics `apiVersionsFromDiscovery.fetchVersions`)
 * and finds no such group.
 */
export function getCustomMetric(): string {
  return 'unable to fetch metrics from custom metrics API: no custom metrics API (custom.metrics.k8s.io) registered';
}

/** `externalMetricsClient.GetExternalMetric`: GET external.metrics.k8s.io/v1beta1/namespaces/<ns>/<metric> fails. */
export function getExternalMetric(metricName: string): string {
  return `unable to fetch metrics from external metrics API: ${notFoundFromServer(metricName, 'external.metrics.k8s.io')}`;
}

/** `ReplicaCalculator.GetResourceReplicas` and `GetRawResourceReplicas`: the resource metrics query fails first. */
export function getResourceReplicas(resource: string): string {
  return `unable to get metrics for resource ${resource}: ${getResourceMetric()}`;
}

/** `ReplicaCalculator.GetMetricReplicas` (a Pods metric). */
export function getMetricReplicas(metricName: string): string {
  return `unable to get metric ${metricName}: ${getCustomMetric()}`;
}

/**
 * `ReplicaCalculator.GetObjectMetricReplicas` and `GetObjectPerPodMetricReplicas`. Upstream's format string
 * has its arguments out of order (`"unable to get metric %s: %v on %s %s/%s", metricName, objectRef.Kind,
 * namespace, objectRef.Name, err`), so the error lands last, after a slash; users see it that way.
 */
export function getObjectMetricReplicas(metricName: string, namespace: string, objectRef: CrossVersionObjectReference): string {
  return `unable to get metric ${metricName}: ${objectRef.kind} on ${namespace} ${objectRef.name}/${getCustomMetric()}`;
}

/**
 * `ReplicaCalculator.GetExternalMetricReplicas` and `GetExternalPerPodMetricReplicas`: the metric selector
 * is converted first (its error is returned as it is), then the query fails.
 */
export function getExternalMetricReplicas(metricName: string, namespace: string, metricSelector: LabelSelector | undefined): string {
  try {
    labelSelectorAsSelector(metricSelector);
  } catch (e) {
    if (e instanceof SelectorParseError) return e.message;
    throw e;
  }
  return `unable to get external metric ${namespace}/${metricName}/${goLabelSelector(metricSelector)}: ${getExternalMetric(metricName)}`;
}

/**
 * Go's `%+v` of a `*metav1.LabelSelector`: its generated `String()` (sorted matchLabels, then
 * matchExpressions), `nil` for a nil pointer.
 */
export function goLabelSelector(s: LabelSelector | undefined): string {
  if (s === undefined) return 'nil';
  const labels = s.matchLabels ?? {};
  const matchLabels = Object.keys(labels)
    .sort()
    .map((k) => `${k}: ${labels[k] ?? ''},`)
    .join('');
  const matchExpressions = (s.matchExpressions ?? [])
    .map((e) => `LabelSelectorRequirement{Key:${e.key},Operator:${e.operator},Values:[${(e.values ?? []).join(' ')}],},`)
    .join('');
  return `&LabelSelector{MatchLabels:map[string]string{${matchLabels}},MatchExpressions:[]LabelSelectorRequirement{${matchExpressions}},}`;
}
