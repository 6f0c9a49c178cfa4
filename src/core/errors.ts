// The one error type of Plinth and the catalogue that gives each code its HTTP status and
// default message. Call sites name a code; the status always comes from here.

export const errorCatalogue = {
  VALIDATION_ERROR: { status: 400, message: 'The request is not valid.' },
  UNAUTHORIZED: { status: 401, message: 'Missing or invalid credentials.' },
  AUTH_UNAUTHORIZED: { status: 401, message: 'The access token is invalid or has expired.' },
  FORBIDDEN: { status: 403, message: 'This action is not allowed.' },
  INSUFFICIENT_PERMISSIONS: { status: 403, message: 'Admin access required' },
  AUTH_SIGNUP_DISABLED: { status: 403, message: 'User signups are disabled for this project.' },
  NOT_FOUND: { status: 404, message: 'Not found.' },
  AUTH_USER_NOT_FOUND: { status: 404, message: 'User not found.' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Method not allowed.' },
  AUTH_EMAIL_EXISTS: { status: 409, message: 'A user with this email already exists.' },
  CONFLICT: { status: 409, message: 'The request conflicts with the current state.' },
  DATABASE_MIGRATION_ALREADY_EXISTS: {
    status: 409,
    message: 'Migration version must be newer than the latest applied migration.',
  },
  DATABASE_NOT_FOUND: { status: 404, message: 'Not found.' },
  DATABASE_DUPLICATE: { status: 409, message: 'This name is already taken.' },
  DATABASE_CONSTRAINT_VIOLATION: { status: 409, message: 'The database is busy with another operation.' },
  NOT_ACCEPTABLE: { status: 406, message: 'The requested representation cannot be produced.' },
  RANGE_NOT_SATISFIABLE: { status: 416, message: 'The requested range cannot be satisfied.' },
  MULTIPLE_CHOICES: { status: 300, message: 'The request is ambiguous.' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is too large.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Unsupported content type.' },
  TOO_MANY_REQUESTS: { status: 429, message: 'Too many requests. Try again later.' },
  AUTH_OAUTH_CONFIG_NOT_FOUND: { status: 404, message: 'This OAuth provider is not configured.' },
  AUTH_OAUTH_CONFIG_EXISTS: { status: 409, message: 'This OAuth provider is already configured.' },
  AUTH_UNSUPPORTED_PROVIDER: { status: 400, message: 'Unsupported OAuth provider.' },
  INTERNAL_ERROR: { status: 500, message: 'An unexpected error occurred.' },
  SERVICE_UNAVAILABLE: { status: 503, message: 'The service is not available right now.' },
  GATEWAY_TIMEOUT: { status: 504, message: 'The query took too long.' },
  UPSTREAM_FAILURE: { status: 502, message: 'An upstream service failed.' },
  PAYMENT_CONFIG_INVALID: { status: 400, message: 'The payment processor is not configured correctly.' },
  PAYMENT_CONFIG_NOT_FOUND: { status: 404, message: 'No processor key is configured for this environment.' },
  PAYMENT_PRODUCT_NOT_FOUND: { status: 404, message: 'Product not found.' },
  PAYMENT_PRICE_NOT_FOUND: { status: 404, message: 'Price not found.' },
  PAYMENT_NOT_FOUND: { status: 404, message: 'Payment resource not found.' },
  PAYMENT_CHECKOUT_ALREADY_EXISTS: {
    status: 409,
    message: 'Idempotency key is already used for another checkout request.',
  },
  EMAIL_DELIVERY_FAILED: { status: 503, message: 'The email could not be delivered.' },
  EMAIL_PROVIDER_NOT_CONFIGURED: { status: 503, message: 'No email provider is configured.' },
  EMAIL_SMTP_SEND_FAILED: { status: 502, message: 'The SMTP server refused the email.' },
  EMAIL_SMTP_CONNECTION_FAILED: { status: 502, message: 'The SMTP server could not be reached.' },
  AUTH_VERIFICATION_EMAIL_DELIVERY_FAILED: {
    status: 503,
    message: 'The account was created, but the verification email could not be delivered.',
  },
  SECRET_ALREADY_EXISTS: { status: 409, message: 'A secret with this key already exists.' },
  AI_INVALID_API_KEY: { status: 400, message: 'The AI provider API key is not configured.' },
  AI_UPSTREAM_UNAVAILABLE: { status: 502, message: 'The AI provider is not reachable.' },
  BILLING_INSUFFICIENT_BALANCE: { status: 402, message: 'AI credit limit reached.' },
  RATE_LIMITED: { status: 429, message: 'AI provider rate limit exceeded. Please wait before retrying.' },
  FUNCTION_NOT_FOUND: { status: 404, message: 'Function not found.' },
  FUNCTION_ALREADY_EXISTS: { status: 409, message: 'A function with this slug already exists.' },
  FUNCTION_SLUG_RESERVED: { status: 400, message: 'This slug is reserved.' },
  FUNCTION_DEPLOY_FAILED: { status: 400, message: 'The function code could not be deployed.' },
  OBJECT_NOT_FOUND: { status: 404, message: 'Object not found.' },
  STORAGE_NOT_FOUND: { status: 404, message: 'Bucket not found.' },
  STORAGE_ALREADY_EXISTS: { status: 409, message: 'The bucket already exists.' },
  STORAGE_INVALID_PARAMETER: { status: 400, message: 'Invalid storage parameter.' },
  STORAGE_PERMISSION_DENIED: { status: 403, message: 'Row-level security does not allow this.' },
  STORAGE_INSUFFICIENT_QUOTA: { status: 413, message: 'The storage quota does not leave room for this upload.' },
  STORAGE_CHECKSUM_MISMATCH: {
    status: 460,
    message: 'The checksum of the received bytes does not match Upload-Checksum.',
  },
  STORAGE_UPLOAD_LOCKED: { status: 423, message: 'Another request is writing this upload.' },
  STORAGE_UPLOAD_EXPIRED: { status: 410, message: 'This upload has expired.' },
  // Image transformations (issue 37): a source the limits refuse, or one that is no image sharp may read.
  IMAGE_TOO_LARGE: { status: 422, message: 'The image is too large to transform.' },
  IMAGE_NOT_SUPPORTED: { status: 422, message: 'The object is not an image that can be transformed.' },
  S3_ACCESS_KEY_NOT_FOUND: { status: 404, message: 'Access key not found.' },
  S3_ACCESS_KEY_LIMIT_EXCEEDED: { status: 400, message: 'Too many S3 access keys.' },
  SECRET_NOT_FOUND: { status: 404, message: 'Secret not found.' },
  SCHEDULE_NOT_FOUND: { status: 404, message: 'Schedule not found.' },
  SCHEDULE_INVALID_CRON: { status: 400, message: 'Invalid cron expression.' },
  SCHEDULE_INVALID_TIME_ZONE: { status: 400, message: 'Unknown time zone.' },
  SCHEDULE_INVALID_TARGET: { status: 400, message: 'A schedule invokes a function or a URL of this API.' },
  REALTIME_CHANNEL_NOT_FOUND: { status: 404, message: 'Channel not found.' },
  REALTIME_INVALID_CHANNEL_PATTERN: {
    status: 400,
    message: 'Invalid channel pattern. Use alphanumeric characters, colons, hyphens, and % for wildcards.',
  },
  REALTIME_TABLE_NOT_WATCHABLE: { status: 400, message: 'This table cannot be watched.' },
  REALTIME_TABLE_NOT_WATCHED: { status: 404, message: 'This table is not watched.' },
  REALTIME_WEBHOOK_DELIVERY_NOT_FOUND: { status: 404, message: 'Webhook delivery not found.' },
  DOCS_NOT_FOUND: { status: 404, message: 'Documentation not found' },
  // Sites (the reference's deployments codes).
  DEPLOYMENT_NOT_FOUND: { status: 404, message: 'Deployment not found.' },
  DEPLOYMENT_INVALID_FILE: { status: 400, message: 'The deployment file is not valid.' },
  DOMAIN_NOT_FOUND: { status: 404, message: 'Domain not found.' },
  DOMAIN_ALREADY_EXISTS: { status: 409, message: 'This domain is already added.' },
  // A write sent to the database whose answer never came: it may or may not have taken effect.
  OUTCOME_UNKNOWN: { status: 503, message: 'The write may or may not have taken effect.' },
  IDEMPOTENCY_KEY_IN_FLIGHT: { status: 409, message: 'A request with this Idempotency-Key is still in progress.' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, message: 'This Idempotency-Key was used for a different request.' },
  // Multi-factor authentication (issue 34; GoTrue's mfa_* / insufficient_aal codes).
  AUTH_MFA_FACTOR_NOT_FOUND: { status: 404, message: 'MFA factor not found.' },
  AUTH_MFA_FACTOR_NAME_CONFLICT: { status: 409, message: 'A factor with this friendly name already exists.' },
  AUTH_MFA_VERIFICATION_FAILED: { status: 400, message: 'Invalid MFA code.' },
  AUTH_MFA_CHALLENGE_EXPIRED: { status: 400, message: 'The MFA challenge has expired or was already answered.' },
  AUTH_MFA_FACTOR_LOCKED: { status: 429, message: 'Too many failed codes for this factor. Try again later.' },
  AUTH_MFA_REQUIRED: { status: 401, message: 'A second factor is required.' },
  AUTH_INSUFFICIENT_AAL: { status: 403, message: 'This action needs a session verified with a second factor (aal2).' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof errorCatalogue;

export interface AppErrorOptions {
  details?: unknown;
  nextActions?: string;
  cause?: unknown;
  /** Extra response headers, e.g. Retry-After. */
  headers?: Record<string, string>;
  /** Extra body fields a client protocol expects (e.g. PostgREST's code, details, hint). */
  fields?: Record<string, unknown>;
  /** The status when the catalogue's does not fit (an upstream's status passed through). */
  status?: number;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;
  readonly details?: unknown;
  readonly nextActions?: string;
  readonly headers?: Record<string, string>;
  readonly fields?: Record<string, unknown>;

  constructor(code: ErrorCode, message?: string, options: AppErrorOptions = {}) {
    super(message ?? errorCatalogue[code].message, { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.statusCode = options.status ?? errorCatalogue[code].status;
    this.details = options.details;
    this.nextActions = options.nextActions;
    this.headers = options.headers;
    this.fields = options.fields;
  }
}

/** The wire shape of every error the API renders. */
export interface ErrorBody extends Record<string, unknown> {
  error: string;
  message: string;
  statusCode: number;
  nextActions?: string;
  details?: unknown;
  requestId?: string;
}

export function toErrorBody(err: AppError): ErrorBody {
  const body: ErrorBody = { ...err.fields, error: err.code, message: err.message, statusCode: err.statusCode };
  if (err.nextActions !== undefined) body.nextActions = err.nextActions;
  if (err.details !== undefined) body.details = err.details;
  return body;
}
