/**
 * The one call the API server's handlers make for a request body sent as
 * `application/vnd.kubernetes.protobuf` (create/update, subresource bodies, DELETE options).
 */
import { apiErrors, type ApiError } from '../../api/errors.js';
import { ProtobufDecodeError, decodeErrorMessage, decodeProtobufObject } from './decode.js';

export interface ExpectedKind {
  /** The kind the endpoint decodes into (`into`), used in the 400 message and as the envelope's default. */
  readonly kind: string;
  /** The endpoint's group version, the default when the envelope names none. */
  readonly apiVersion?: string;
}

/**
 * Decodes a protobuf body into its JSON object (with `apiVersion` and `kind`). Throws a 400 BadRequest
 * `ApiError` worded as kube-apiserver's `transformDecodeError`. Checking that the decoded kind and version
 * are the ones the endpoint accepts stays with the caller, as for JSON bodies.
 */
export function parseProtobufBody(body: Uint8Array, expected: ExpectedKind): Record<string, unknown> {
  try {
    return decodeProtobufObject(body, expected.apiVersion === undefined ? { kind: expected.kind } : expected).object;
  } catch (e) {
    throw toBadRequest(e, expected.kind, body);
  }
}

function toBadRequest(e: unknown, intoKind: string, body: Uint8Array): ApiError {
  const err = e instanceof ProtobufDecodeError ? e : new ProtobufDecodeError(e instanceof Error ? e.message : String(e));
  return apiErrors.badRequest(decodeErrorMessage(err, intoKind, body));
}
