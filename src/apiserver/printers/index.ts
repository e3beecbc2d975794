export { humanDuration, shortHumanDuration } from './duration.js';
export { defaultCustomResourceColumns, jsonPathFirst, parseJsonPath, printCustomResourceTable, type CustomResourceColumnDefinition } from './custom-resource.js';
export { columnDefinitions, columnsFor, defaultColumnDefinitions, type TableColumnDefinition } from './columns.js';
export {
  findNodeRoles,
  formatLabelSelector,
  hasPrinter,
  printPod,
  printTable,
  serviceExternalIP,
  servicePortString,
  translateTimestampSince,
  type IncludeObjectPolicy,
  type KubeObject,
  type PrintOptions,
  type Table,
  type TableRow,
  type TableRowCondition,
} from './printers.js';
