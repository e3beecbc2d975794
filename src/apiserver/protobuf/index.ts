export { parseProtobufBody, type ExpectedKind } from './body.js';
export {
  PROTOBUF_CONTENT_TYPE,
  PROTOBUF_PREFIX,
  ProtobufDecodeError,
  ProtobufDecoder,
  decodeErrorMessage,
  decodeProtobufObject,
  formatGoDuration,
  formatTime,
  isProtobufContentType,
  type DecodedProtobufObject,
  type KindDefaults,
} from './decode.js';
export { k8sSchema } from './schema/k8s-1.32.js';
export type { FieldTuple, ProtoSchema } from './schema/types.js';
