/**
 * API errors: one base class with the wire `metav1.Status` (`toStatus()`), one catalogue of reasons, and
 * constructors whose messages mirror apimachinery's `k8s.io/apimachinery/pkg/api/errors` word for word.
 */
import { aggregateMessage, errorBody, type FieldError } from './field-errors.js';

export const StatusReason = {
  Unknown: '',
  Unauthorized: 'Unauthorized',
  Forbidden: 'Forbidden',
  NotFound: 'NotFound',
  AlreadyExists: 'AlreadyExists',
  Conflict: 'Conflict',
  Gone: 'Gone',
  Invalid: 'Invalid',
  ServerTimeout: 'ServerTimeout',
  Timeout: 'Timeout',
  TooManyRequests: 'TooManyRequests',
  BadRequest: 'BadRequest',
  MethodNotAllowed: 'MethodNotAllowed',
  NotAcceptable: 'NotAcceptable',
  RequestEntityTooLarge: 'RequestEntityTooLarge',
  UnsupportedMediaType: 'UnsupportedMediaType',
  InternalError: 'InternalError',
  Expired: 'Expired',
  ServiceUnavailable: 'ServiceUnavailable',
} as const;
export type StatusReason = (typeof StatusReason)[keyof typeof StatusReason];

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** The wire form of `metav1.Status`. */
export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never> | { resourceVersion?: string; continue?: string };
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** A resource named as apimachinery's `schema.GroupResource.String()` prints it: `pods`, `deployments.apps`. */
export interface GroupResource {
  group: string;
  resource: string;
}

export function groupResourceString(gr: GroupResource): string {
  return gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
}

export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: StatusReason,
    message: string,
    readonly details: StatusDetails | undefined = undefined,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toStatus(): Status {
    const s: Status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      code: this.code,
    };
    if (this.details !== undefined) s.details = this.details;
    return s;
  }
}

function details(gr: GroupResource, name: string): StatusDetails {
  const d: StatusDetails = {};
  if (name !== '') d.name = name;
  if (gr.group !== '') d.group = gr.group;
  d.kind = gr.resource;
  return d;
}

/** The cause reason of a read at a resourceVersion the server has not reached (metav1.CauseType). */
const tooLargeResourceVersionCause = 'ResourceVersionTooLarge';

export const apiErrors = {
  notFound(gr: GroupResource, name: string): ApiError {
    return new ApiError(404, StatusReason.NotFound, `${groupResourceString(gr)} "${name}" not found`, details(gr, name));
  },
  /** The router's 404 for a resource or subresource the server does not serve. */
  resourceNotServed(): ApiError {
    return new ApiError(404, StatusReason.NotFound, 'the server could not find the requested resource', {});
  },
  alreadyExists(gr: GroupResource, name: string): ApiError {
    return new ApiError(409, StatusReason.AlreadyExists, `${groupResourceString(gr)} "${name}" already exists`, details(gr, name));
  },
  /** `NewConflict`: `Operation cannot be fulfilled on <gr> "<name>": <err>`. */
  conflict(gr: GroupResource, name: string, err: string): ApiError {
    return new ApiError(
      409,
      StatusReason.Conflict,
      `Operation cannot be fulfilled on ${groupResourceString(gr)} "${name}": ${err}`,
      details(gr, name),
    );
  },
  /** The optimistic-concurrency conflict text of the registry. */
  modified(gr: GroupResource, name: string): ApiError {
    return apiErrors.conflict(
      gr,
      name,
      'the object has been modified; please apply your changes to the latest version and try again',
    );
  },
  /** `NewInvalid(qualifiedKind, name, errs)`; `kind` is `Deployment.apps` style without the group in details. */
  invalid(kind: { group: string; kind: string }, name: string, errs: readonly FieldError[]): ApiError {
    const qualified = kind.group === '' ? kind.kind : `${kind.kind}.${kind.group}`;
    const d: StatusDetails = { name };
    if (kind.group !== '') d.group = kind.group;
    d.kind = kind.kind;
    d.causes = errs.map((e) => ({ reason: e.type, message: errorBody(e), field: e.field }));
    const msg =
      errs.length === 0 ? `${qualified} "${name}" is invalid` : `${qualified} "${name}" is invalid: ${aggregateMessage(errs)}`;
    return new ApiError(422, StatusReason.Invalid, msg, d);
  },
  /** `NewForbidden`: `<gr> "<name>" is forbidden: <err>` (no name: `<gr> is forbidden: <err>`). */
  forbidden(gr: GroupResource, name: string, err: string): ApiError {
    const subject = name === '' ? groupResourceString(gr) : `${groupResourceString(gr)} "${name}"`;
    return new ApiError(403, StatusReason.Forbidden, `${subject} is forbidden: ${err}`, details(gr, name));
  },
  unauthorized(message = 'Unauthorized'): ApiError {
    return new ApiError(401, StatusReason.Unauthorized, message);
  },
  badRequest(message: string): ApiError {
    return new ApiError(400, StatusReason.BadRequest, message);
  },
  methodNotAllowed(): ApiError {
    return new ApiError(405, StatusReason.MethodNotAllowed, 'the server does not allow this method on the requested resource');
  },
  notAcceptable(message: string): ApiError {
    return new ApiError(406, StatusReason.NotAcceptable, message);
  },
  unsupportedMediaType(contentType: string): ApiError {
    void contentType;
    return new ApiError(415, StatusReason.UnsupportedMediaType, '415: Unsupported Media Type', {});
  },
  /** 410 for a watch or list from a compacted revision. */
  resourceExpired(message: string): ApiError {
    return new ApiError(410, StatusReason.Expired, message);
  },
  gone(message: string): ApiError {
    return new ApiError(410, StatusReason.Gone, message);
  },
  requestEntityTooLarge(message: string): ApiError {
    return new ApiError(413, StatusReason.RequestEntityTooLarge, `Request entity too large: ${message}`);
  },
  tooManyRequests(message: string, retryAfterSeconds: number): ApiError {
    return new ApiError(429, StatusReason.TooManyRequests, message, { retryAfterSeconds });
  },
  internal(message: string): ApiError {
    return new ApiError(500, StatusReason.InternalError, `Internal error occurred: ${message}`, {
      causes: [{ message }],
    });
  },
  serviceUnavailable(message: string): ApiError {
    return new ApiError(503, StatusReason.ServiceUnavailable, message);
  },
  timeout(message: string): ApiError {
    return new ApiError(504, StatusReason.Timeout, message);
  },
  /** apimachinery's `NewTooLargeResourceVersionError`: a read at `rv` waited in vain for the cache to reach it. */
  tooLargeResourceVersion(rv: number, current: number): ApiError {
    return new ApiError(504, StatusReason.Timeout, `Too large resource version: ${rv}, current: ${current}`, {
      causes: [{ reason: tooLargeResourceVersionCause, message: 'Too large resource version' }],
      retryAfterSeconds: 1,
    });
  },
};

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}
export const isNotFound = (e: unknown): boolean => isApiError(e) && e.reason === StatusReason.NotFound;
export const isAlreadyExists = (e: unknown): boolean => isApiError(e) && e.reason === StatusReason.AlreadyExists;
export const isConflict = (e: unknown): boolean => isApiError(e) && e.reason === StatusReason.Conflict;
export const isInvalid = (e: unknown): boolean => isApiError(e) && e.reason === StatusReason.Invalid;
export const isForbidden = (e: unknown): boolean => isApiError(e) && e.reason === StatusReason.Forbidden;
export const isGone = (e: unknown): boolean =>
  isApiError(e) && (e.reason === StatusReason.Expired || e.reason === StatusReason.Gone);

/**
 * apimachinery's `IsTooLargeResourceVersionError`: a read at a resourceVersion the server has not reached
 * (a 504 Timeout whose cause is `ResourceVersionTooLarge`).
 */
export const isTooLargeResourceVersion = (e: unknown): boolean =>
  isApiError(e) && e.code === 504 && (e.details?.causes ?? []).some((c) => c.reason === tooLargeResourceVersionCause);

/** Rebuild an ApiError from a wire Status (used by the HTTP client). */
export function apiErrorFromStatus(s: Partial<Status>, httpCode: number): ApiError {
  const reason = (s.reason ?? StatusReason.Unknown) as StatusReason;
  return new ApiError(s.code ?? httpCode, reason, s.message ?? `the server responded with the status code ${httpCode}`, s.details);
}
