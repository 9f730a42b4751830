// One error base class, one subclass per category of failure (spec §7), so callers branch with instanceof
// and the CLI maps classes to exit codes. Messages never carry the API key: the key is never put in a URL
// and request headers are not stored on errors.
import type { QuotaInfo } from './types.js';

export interface ErrorDetails {
  /** HTTP status, when a response was received. */
  status?: number;
  /** The service's error code (§7) or a client-side code. */
  code: string;
  /** The host or technology the request was about, when there is one. */
  host?: string;
  /** Endpoint operation name: domain, batch, traffic, employees, technology, catalog. */
  operation?: string;
  quota?: QuotaInfo | null;
  cause?: unknown;
}

/** Base of every error this library throws. */
export class DomainIntelError extends Error {
  readonly status: number | undefined;
  readonly code: string;
  readonly host: string | undefined;
  readonly operation: string | undefined;
  readonly quota: QuotaInfo | null;

  constructor(message: string, details: ErrorDetails) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.status = details.status;
    this.code = details.code;
    this.host = details.host;
    this.operation = details.operation;
    this.quota = details.quota ?? null;
  }
}

/** The service answered with an error status (§7). */
export class ApiError extends DomainIntelError {}

/** 400 bad_domain / bad_host / bad_batch: the input broke rule 2.9 or the batch shape. Never retried. */
export class BadRequestError extends ApiError {}

/** 401 invalid_key: missing, malformed or revoked key. Never retried. */
export class InvalidKeyError extends ApiError {}

/** 402 quota_exhausted: the month's lookups are spent. Nothing more may be sent. */
export class QuotaExhaustedError extends ApiError {
  /** When the allowance renews, if the quota headers said. */
  get resetAt(): Date | null {
    return this.quota?.reset ?? null;
  }
}

/** 404 not_found: the host or technology is not held. For costed lookups the lookup is spent. */
export class NotFoundError extends ApiError {}

/** 429 rate_limited: back off until `resumeAt` (epoch ms), then retry. */
export class RateLimitedError extends ApiError {
  constructor(
    message: string,
    details: ErrorDetails,
    /** Epoch ms at which requests may resume: the announced reset, else the next boundary of the rate window. */
    readonly resumeAt: number,
    /** False when the 429 carried no readable reset in any shape, so `resumeAt` is only our guess. */
    readonly resetAnnounced = true,
    /** True when the reset came as whole seconds to wait (Retry-After: 2): up to a second late, too coarse to measure a window by. */
    readonly resetRounded = false,
  ) {
    super(message, details);
  }
}

/** 503 metering_unavailable: nothing served, nothing spent; retry shortly. */
export class MeteringUnavailableError extends ApiError {}

/** Any other non-2xx status (5xx, unexpected 4xx): retried when 5xx. */
export class ServerError extends ApiError {}

/** The connection failed, was reset, or timed out before a full answer arrived. */
export class NetworkError extends DomainIntelError {}

/** The service answered 2xx with a body we cannot use: not JSON, truncated, wrong shape, too large. */
export class ProtocolError extends DomainIntelError {}

/** A caller-side mistake: bad option, bad configuration, insecure base URL, missing key. */
export class UsageError extends DomainIntelError {
  constructor(message: string, code = 'usage') {
    super(message, { code });
  }
}

/** Input data that cannot be read: names the file, the line and the value. */
export class InputError extends DomainIntelError {
  constructor(
    message: string,
    readonly file: string,
    readonly line: number | null,
    code = 'bad_input',
  ) {
    super(message, { code });
  }
}

/**
 * An input holding no row to enrich: empty, blank and `#` lines only, or a header alone. Refused before
 * anything is written when the caller asks (JobInput.refuseEmpty; the CLI's default, `--allow-empty` turns it
 * off): a failed upstream export must not replace yesterday's enriched file with an empty one.
 */
export class EmptyInputError extends InputError {
  constructor(message: string, file: string) {
    super(message, file, null, 'empty_input');
  }
}

/**
 * The output could not be written (disk full, read-only, permission): names the target and the cause. An
 * existing -o FILE is untouched when this is raised.
 */
export class OutputError extends DomainIntelError {
  constructor(
    message: string,
    readonly target: string,
    code = 'output',
  ) {
    super(message, { code });
  }
}

/** The run was cut short by the caller (AbortSignal / Ctrl-C). */
export class AbortedError extends DomainIntelError {
  constructor(message = 'aborted') {
    super(message, { code: 'aborted' });
  }
}
