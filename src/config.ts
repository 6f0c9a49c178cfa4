// The only reader of process.env: one schema for every setting, every problem reported at once.
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { parseAllowedOrigins } from './core/address-policy.js';

/** The door's adaptive limit never shrinks below this many requests in flight (ADMISSION_MIN_CONCURRENCY). */
const DEFAULT_ADMISSION_FLOOR = 2;

const port = z.coerce.number().int().min(1).max(65535);
const seconds = z.coerce.number().int().positive();
const flag = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

/** API_BASE_URL without trailing slashes, or this server's own address. */
const apiBaseUrlOf = (env: { API_BASE_URL?: string; PORT: number }) =>
  (env.API_BASE_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, '');

const envSchema = z
  .object({
    PORT: port.default(7130),
    HOST: z.string().min(1).default('0.0.0.0'),
    API_BASE_URL: z.url().optional(),
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
      .optional(),
    PLINTH_DATA_DIR: z.string().min(1).default('./.plinth'),
    EMBEDDED_PG_PORT: port.default(7134),
    ADMIN_EMAIL: z.email().optional(),
    ADMIN_PASSWORD: z.string().min(8).max(4096).optional(),
    PLINTH_ENCRYPTION_KEY: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters (32 bytes)')
      .optional(),
    PLINTH_PREVIOUS_ENCRYPTION_KEYS: z
      .string()
      .regex(/^[0-9a-fA-F]{64}(,[0-9a-fA-F]{64})*$/, 'must be comma-separated keys of 64 hex characters')
      .optional(),
    // Passkeys (WebAuthn): the relying party. Unset: API_BASE_URL's host name and origin.
    WEBAUTHN_RP_ID: z
      .string()
      .regex(/^[a-z0-9.-]+$/i, 'must be a host name, such as example.com')
      .optional(),
    WEBAUTHN_RP_NAME: z.string().min(1).max(100).default('Plinth'),
    WEBAUTHN_ORIGINS: z
      .string()
      .refine((list) => list.split(',').every((o) => URL.canParse(o.trim()) && new URL(o.trim()).origin === o.trim()), {
        message: 'must be comma-separated origins, such as https://app.example.com',
      })
      .optional(),
    ACCESS_TOKEN_TTL_SECONDS: seconds.default(15 * 60),
    REFRESH_TOKEN_TTL_SECONDS: seconds.default(7 * 24 * 60 * 60),
    REFRESH_REUSE_GRACE_SECONDS: z.coerce.number().int().min(0).default(10),
    // Access tokens whose lifetime (exp − iat) is longer are refused, however they were signed
    // (default: 1 h, or ACCESS_TOKEN_TTL_SECONDS when that is longer).
    ACCESS_TOKEN_MAX_LIFETIME_SECONDS: seconds.optional(),
    SMTP_HOST: z.string().min(1).optional(),
    SMTP_PORT: port.default(587),
    SMTP_SECURE: flag.default(false),
    SMTP_USERNAME: z.string().optional(),
    SMTP_PASSWORD: z.string().optional(),
    SMTP_SENDER_EMAIL: z.email().optional(),
    SMTP_SENDER_NAME: z.string().default('Plinth'),
    RECORDS_MAX_ROWS: z.coerce.number().int().min(1).default(1000),
    RECORDS_SCHEMAS: z
      .string()
      .regex(/^[a-z_][a-z0-9_]*(,[a-z_][a-z0-9_]*)*$/, 'must be comma-separated schema names')
      .default('public'),
    RAW_SQL_TIMEOUT_MS: z.coerce.number().int().min(1).max(3_600_000).default(30_000),
    CORS_ORIGINS: z.string().default('*'),
    COOKIE_SECURE: flag.optional(),
    MAX_BODY_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .default(1024 * 1024),
    // Nesting of objects/arrays in a JSON body (and any JSON value bound for SQL); 1000 at most.
    MAX_JSON_DEPTH: z.coerce.number().int().min(2).max(1000).default(64),
    // Statement timeouts of records, RPC and storage statements by role (0: none), as Supabase's.
    ANON_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(3_000),
    AUTHENTICATED_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(8_000),
    PASSWORD_HASH_CONCURRENCY: z.coerce.number().int().min(1).default(availableParallelism()),
    // Password checks waiting for a hashing slot before more are refused with 503 + Retry-After.
    PASSWORD_HASH_QUEUE_MAX: z.coerce.number().int().min(0).default(64),
    DB_POOL_SIZE: z.coerce.number().int().min(1).default(20),
    // Requests waiting for a database connection before new ones get 503 (default: 2 × the pool).
    DB_POOL_QUEUE_MAX: z.coerce.number().int().min(0).optional(),
    // Connections the requests of one database role may use at once (up to DB_POOL_QUEUE_MAX more
    // wait; past that 503 at once), so slow anonymous queries cannot take the pool from signed-in users. Defaults:
    // anon half the pool, authenticated three quarters (at least 1 each); project_admin unbounded.
    DB_POOL_ANON_SHARE: z.coerce.number().int().min(1).optional(),
    DB_POOL_AUTHENTICATED_SHARE: z.coerce.number().int().min(1).optional(),
    // Admission's adaptive limit on requests in flight (between the floor, default the pool size,
    // and the pool plus its queue; it refuses only while every connection is held, so a floor
    // below the pool acts as the pool): while refusing, it shrinks when latency passes the tolerance
    // (× the lowest median latency of a window without refusals, remembered for the baseline
    // period); it moves once a window.
    ADMISSION_MIN_CONCURRENCY: z.coerce.number().int().min(1).optional(),
    ADMISSION_LATENCY_TOLERANCE: z.coerce.number().min(1).max(100).default(2),
    ADMISSION_WINDOW_MS: z.coerce.number().int().min(1).max(60_000).default(100),
    ADMISSION_BASELINE_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(60_000),
    // Server-side deadline of a request (function calls and admin SQL get their own timeout + 1 s).
    REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
    TRUST_PROXY: flag.default(false),
    // Lifecycle and connections: how long SIGTERM waits for in-flight requests, the connection
    // cap (default: from the open-file limit) and the HTTP timeouts.
    SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(3_600_000).default(20_000),
    // Realtime presence: how often a server records it is alive (silent 3 intervals: dead).
    REALTIME_HEARTBEAT_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(10_000),
    // Realtime webhooks: how often each server looks for due deliveries (0: never; tests tick).
    REALTIME_WEBHOOK_POLL_MS: z.coerce.number().int().min(0).max(3_600_000).default(1_000),
    // Realtime: subscribe/publish events one socket may send per second (bursts up to as many).
    REALTIME_SOCKET_EVENTS_PER_SECOND: z.coerce.number().int().min(1).max(100_000).default(100),
    // Realtime guards: the largest publish payload (JSON bytes), the payload bytes one socket may
    // publish per second, sockets one client IP / one signed-in user may hold on a server, the
    // subscribe/publish events all sockets of one IP and of the whole server may send per second,
    // how often open sockets' credentials are checked again (expiry, rotated keys), and how many
    // days stored messages are kept when realtime.config sets none (0: kept forever).
    REALTIME_MAX_PAYLOAD_BYTES: z.coerce.number().int().min(256).max(16_777_216).default(65_536),
    REALTIME_SOCKET_BYTES_PER_SECOND: z.coerce.number().int().min(256).max(1_073_741_824).default(1_048_576),
    REALTIME_MAX_SOCKETS_PER_IP: z.coerce.number().int().min(1).max(1_000_000).default(100),
    REALTIME_MAX_SOCKETS_PER_USER: z.coerce.number().int().min(1).max(1_000_000).default(20),
    REALTIME_IP_EVENTS_PER_SECOND: z.coerce.number().int().min(1).max(1_000_000).default(500),
    REALTIME_SERVER_EVENTS_PER_SECOND: z.coerce.number().int().min(1).max(1_000_000).default(2_000),
    REALTIME_CREDENTIAL_CHECK_MS: z.coerce.number().int().min(10).max(3_600_000).default(5_000),
    REALTIME_MESSAGE_RETENTION_DAYS: z.coerce.number().int().min(0).max(36_500).default(30),
    MAX_CONNECTIONS: z.coerce.number().int().min(1).optional(),
    HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1_000).default(15_000),
    HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1_000).default(300_000),
    HTTP_IDLE_TIMEOUT_MS: z.coerce.number().int().min(1_000).optional(),
    HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(1_000).default(72_000),
    // AI provider key: seeds the stored OpenRouter key once, when none is stored.
    OPENROUTER_API_KEY: z.string().min(1).max(4096).optional(),
    // AI gateway: the provider's OpenAI-compatible API, its retries, and the maxTokens cap.
    OPENROUTER_BASE_URL: z.url().default('https://openrouter.ai/api/v1'),
    OPENROUTER_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
    MAX_COMPLETION_TOKENS: z.coerce.number().int().min(1).default(16384),
    // Functions: the Deno runtime the server starts (port 0: any free loopback port).
    FUNCTIONS_RUNTIME_PORT: z.coerce.number().int().min(0).max(65535).default(7133),
    FUNCTIONS_TIMEOUT_MS: z.coerce.number().int().min(10).default(60_000),
    FUNCTIONS_MEMORY_MB: z.coerce.number().int().min(16).default(256),
    FUNCTIONS_HEALTH_INTERVAL_MS: z.coerce.number().int().min(100).default(5_000),
    FUNCTIONS_DENO_PATH: z.string().min(1).optional(),
    // Outbound calls (functions, webhooks) never reach loopback, private, link-local or reserved
    // addresses; these origins (comma-separated scheme://host[:port]) are the exceptions.
    OUTBOUND_ALLOWED_ORIGINS: z
      .string()
      .optional()
      .refine(
        (list) => {
          try {
            parseAllowedOrigins(list);
            return true;
          } catch {
            return false;
          }
        },
        { message: 'must be comma-separated http(s) origins, such as http://127.0.0.1:9000' },
      )
      .transform(parseAllowedOrigins),
    // Function answers are sandboxed documents (CSP sandbox + nosniff) unless switched off here.
    FUNCTIONS_SANDBOX: flag.default(true),
    // A separate origin for function answers (e.g. https://fn.example.com): when set, /functions/*
    // is served only on its host, and that host serves nothing else.
    FUNCTIONS_ORIGIN: z.url().optional(),
    // Schedules: how often this server looks for due runs (0: this server never runs schedules),
    // a run's default timeout, how late a due time may be before it counts as missed (downtime),
    // and how many runs this server executes at once.
    SCHEDULES_POLL_MS: z.coerce.number().int().min(0).max(3_600_000).default(1_000),
    SCHEDULES_RUN_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(300_000),
    SCHEDULES_MISSED_RUN_GRACE_MS: z.coerce.number().int().min(0).default(60_000),
    SCHEDULES_MAX_CONCURRENT_RUNS: z.coerce.number().int().min(1).max(1000).default(20),
    // Scheduled database backups: how often this server checks whether one is due (0: never here).
    BACKUPS_POLL_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
    // Whether backups hold the bytes of stored files (storage objects) besides their metadata.
    BACKUPS_INCLUDE_FILES: flag.default(true),
    // How long a (synchronous) restore request may take before it is answered 503.
    BACKUPS_RESTORE_TIMEOUT_MS: z.coerce.number().int().min(1_000).default(3_600_000),
    // GET /metrics (Prometheus): behind the API key / an admin token, open to anyone, or absent.
    METRICS_ACCESS: z.enum(['off', 'api-key', 'public']).default('api-key'),
    PAYMENTS_PROCESSOR_HOST: z.string().min(1).optional(),
    PAYMENTS_PROCESSOR_PORT: port.optional(),
    PAYMENTS_PROCESSOR_PROTOCOL: z.enum(['http', 'https']).optional(),
    PAYMENTS_PROCESSOR_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
    // Razorpay (the second processor): where its SDK sends calls, how long one may take, and how
    // long a rotated webhook secret keeps verifying deliveries.
    RAZORPAY_API_BASE_URL: z.url().default('https://api.razorpay.com'),
    RAZORPAY_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
    RAZORPAY_WEBHOOK_SECRET_GRACE_SECONDS: z.coerce.number().int().min(0).default(86_400),
    // Logs kept in PostgreSQL (searchable, audit trail): on/off, the in-memory buffer (entries past
    // it are dropped and counted), the batch size and how often the buffer is flushed.
    LOGS_STORE: flag.default(true),
    LOGS_BUFFER_MAX: z.coerce.number().int().min(1).default(20_000),
    LOGS_BATCH_SIZE: z.coerce.number().int().min(1).max(5_000).default(2_000),
    LOGS_FLUSH_INTERVAL_MS: z.coerce.number().int().min(10).default(1_000),
    LOGS_MAINTENANCE_INTERVAL_MS: z.coerce.number().int().min(1_000).default(3_600_000),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    // Unset: pretty lines when stdout is a terminal, JSON lines otherwise.
    LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
    // Object storage: local disk (default, under the data directory) or an S3 bucket.
    STORAGE_BACKEND: z.enum(['local', 's3']).default('local'),
    STORAGE_DIR: z.string().min(1).optional(),
    STORAGE_MAX_FILE_SIZE_BYTES: z.coerce
      .number()
      .int()
      .min(1)
      .default(50 * 1024 * 1024),
    // Resumable uploads (tus): how long an incomplete upload lives; the total bytes of stored
    // objects plus uploads in progress (0: no quota).
    STORAGE_RESUMABLE_EXPIRY_SECONDS: z.coerce
      .number()
      .int()
      .min(60)
      .default(24 * 60 * 60),
    STORAGE_QUOTA_BYTES: z.coerce.number().int().min(0).default(0),
    STORAGE_S3_BUCKET: z.string().min(1).optional(),
    STORAGE_S3_PREFIX: z.string().default(''),
    STORAGE_S3_REGION: z.string().min(1).optional(),
    AWS_REGION: z.string().min(1).optional(),
    STORAGE_S3_ENDPOINT: z.url().optional(),
    STORAGE_S3_FORCE_PATH_STYLE: flag.default(false),
    STORAGE_S3_ACCESS_KEY_ID: z.string().min(1).optional(),
    STORAGE_S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
    // Sites (the app's front end, docs/sites.md): served at {slug}.localhost:PORT and, when set,
    // at {slug}.SITES_DOMAIN; builds on/off, their time and memory limits; upload limits.
    SITES_DOMAIN: z
      .string()
      .regex(
        /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/i,
        'must be a domain, such as sites.example.com',
      )
      .optional(),
    SITES_BUILDS: flag.default(true),
    SITES_BUILD_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(600_000),
    SITES_BUILD_MEMORY_MB: z.coerce.number().int().min(16).max(65_536).default(2048),
    SITES_MAX_FILE_BYTES: z.coerce
      .number()
      .int()
      .min(1)
      .default(50 * 1024 * 1024),
    SITES_MAX_TOTAL_BYTES: z.coerce
      .number()
      .int()
      .min(1)
      .default(500 * 1024 * 1024),
    SITES_MAX_FILES: z.coerce.number().int().min(1).max(1_000_000).default(20_000),
    // Image transformations (docs/storage-images.md): what a source may be, what may be asked,
    // how many run at once and wait, and the variant cache's size.
    STORAGE_IMAGE_MAX_SOURCE_PIXELS: z.coerce.number().int().min(1).default(50_000_000),
    STORAGE_IMAGE_MAX_SOURCE_BYTES: z.coerce
      .number()
      .int()
      .min(1)
      .default(25 * 1024 * 1024),
    STORAGE_IMAGE_MAX_DIMENSION: z.coerce.number().int().min(1).max(16_383).default(2_500),
    STORAGE_IMAGE_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
    STORAGE_IMAGE_QUEUE: z.coerce.number().int().min(0).default(32),
    STORAGE_IMAGE_TIMEOUT_SECONDS: seconds.default(20),
    STORAGE_IMAGE_CACHE_MAX_BYTES: z.coerce
      .number()
      .int()
      .min(0)
      .default(1024 * 1024 * 1024),
    STORAGE_IMAGE_CACHE_MAX_AGE_SECONDS: z.coerce.number().int().min(0).default(86_400),
  })
  .superRefine((env, ctx) => {
    if (env.SMTP_HOST && !env.SMTP_SENDER_EMAIL) {
      ctx.addIssue({ code: 'custom', path: ['SMTP_SENDER_EMAIL'], message: 'is required when SMTP_HOST is set' });
    }
    if (env.HTTP_HEADERS_TIMEOUT_MS > env.HTTP_REQUEST_TIMEOUT_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['HTTP_HEADERS_TIMEOUT_MS'],
        message: 'must not exceed HTTP_REQUEST_TIMEOUT_MS',
      });
    }
    if (
      env.ACCESS_TOKEN_MAX_LIFETIME_SECONDS !== undefined &&
      env.ACCESS_TOKEN_MAX_LIFETIME_SECONDS < env.ACCESS_TOKEN_TTL_SECONDS
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['ACCESS_TOKEN_MAX_LIFETIME_SECONDS'],
        message: 'must not be below ACCESS_TOKEN_TTL_SECONDS',
      });
    }
    if (!env.FUNCTIONS_SANDBOX && !env.FUNCTIONS_ORIGIN) {
      ctx.addIssue({
        code: 'custom',
        path: ['FUNCTIONS_SANDBOX'],
        message:
          "can be false only with FUNCTIONS_ORIGIN set: an unsandboxed function page on the API's origin could take the dashboard's session",
      });
    }
    if (env.FUNCTIONS_ORIGIN && new URL(env.FUNCTIONS_ORIGIN).host === new URL(apiBaseUrlOf(env)).host) {
      ctx.addIssue({ code: 'custom', path: ['FUNCTIONS_ORIGIN'], message: 'must be another host than API_BASE_URL' });
    }
    if (env.STORAGE_BACKEND === 's3' && !env.STORAGE_S3_BUCKET) {
      ctx.addIssue({ code: 'custom', path: ['STORAGE_S3_BUCKET'], message: 'is required when STORAGE_BACKEND is s3' });
    }
  })
  .transform((env) => ({
    webauthn: {
      rpId: env.WEBAUTHN_RP_ID ?? new URL(apiBaseUrlOf(env)).hostname,
      rpName: env.WEBAUTHN_RP_NAME,
      origins: env.WEBAUTHN_ORIGINS?.split(',').map((o) => o.trim()) ?? [new URL(apiBaseUrlOf(env)).origin],
    },
    port: env.PORT,
    host: env.HOST,
    apiBaseUrl: apiBaseUrlOf(env),
    databaseUrl: env.DATABASE_URL,
    dataDir: path.resolve(env.PLINTH_DATA_DIR),
    embeddedPgPort: env.EMBEDDED_PG_PORT,
    adminEmail: env.ADMIN_EMAIL?.toLowerCase(),
    adminPassword: env.ADMIN_PASSWORD,
    encryptionKeyHex: env.PLINTH_ENCRYPTION_KEY,
    // Keys retired by a rotation: still open what they sealed, never seal anything new.
    previousEncryptionKeysHex: env.PLINTH_PREVIOUS_ENCRYPTION_KEYS?.split(',') ?? [],
    accessTokenTtlSeconds: env.ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenTtlSeconds: env.REFRESH_TOKEN_TTL_SECONDS,
    accessTokenMaxLifetimeSeconds:
      env.ACCESS_TOKEN_MAX_LIFETIME_SECONDS ?? Math.max(3_600, env.ACCESS_TOKEN_TTL_SECONDS),
    refreshReuseGraceSeconds: env.REFRESH_REUSE_GRACE_SECONDS,
    smtp: env.SMTP_HOST
      ? {
          host: env.SMTP_HOST,
          port: env.SMTP_PORT,
          secure: env.SMTP_SECURE,
          username: env.SMTP_USERNAME ?? '',
          password: env.SMTP_PASSWORD ?? null,
          senderEmail: env.SMTP_SENDER_EMAIL ?? '',
          senderName: env.SMTP_SENDER_NAME,
        }
      : undefined,
    recordsMaxRows: env.RECORDS_MAX_ROWS,
    recordsSchemas: env.RECORDS_SCHEMAS.split(','),
    // Statement timeout of POST /api/database/advance/rawsql (admin SQL).
    rawSqlTimeoutMs: env.RAW_SQL_TIMEOUT_MS,
    corsOrigins: env.CORS_ORIGINS.split(',')
      .map((o) => o.trim())
      .filter(Boolean),
    // Browsers only store SameSite=None cookies that are Secure; plain-http local dev gets Lax.
    cookieSecure: env.COOKIE_SECURE,
    maxBodyBytes: env.MAX_BODY_BYTES,
    maxJsonDepth: env.MAX_JSON_DEPTH,
    // The admin (project_admin) through the records API gets RAW_SQL_TIMEOUT_MS: no longer than
    // it may run any statement through raw SQL, and never unbounded on a pooled connection.
    statementTimeouts: {
      anon: env.ANON_STATEMENT_TIMEOUT_MS,
      authenticated: env.AUTHENTICATED_STATEMENT_TIMEOUT_MS,
      projectAdmin: env.RAW_SQL_TIMEOUT_MS,
    },
    passwordHashConcurrency: env.PASSWORD_HASH_CONCURRENCY,
    passwordHashQueueMax: env.PASSWORD_HASH_QUEUE_MAX,
    dbPoolSize: env.DB_POOL_SIZE,
    dbPoolQueueMax: env.DB_POOL_QUEUE_MAX ?? 2 * env.DB_POOL_SIZE,
    dbPoolShares: {
      anon: env.DB_POOL_ANON_SHARE ?? Math.max(1, Math.floor(env.DB_POOL_SIZE / 2)),
      authenticated: env.DB_POOL_AUTHENTICATED_SHARE ?? Math.max(1, Math.floor((env.DB_POOL_SIZE * 3) / 4)),
    },
    admission: {
      // Two: a request's database round trip can overlap another's work in Node. Under overload
      // the limit settles where answers stay near twice their unloaded latency, which may be far
      // below the pool on a saturated core (bench/suite/overload.ts, bench/README.md).
      minConcurrency: env.ADMISSION_MIN_CONCURRENCY ?? Math.min(DEFAULT_ADMISSION_FLOOR, env.DB_POOL_SIZE),
      latencyTolerance: env.ADMISSION_LATENCY_TOLERANCE,
      windowMs: env.ADMISSION_WINDOW_MS,
      baselineMs: env.ADMISSION_BASELINE_MS,
    },
    requestTimeoutMs: env.REQUEST_TIMEOUT_MS,
    trustProxy: env.TRUST_PROXY,
    shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
    realtimeHeartbeatMs: env.REALTIME_HEARTBEAT_MS,
    realtimeWebhookPollMs: env.REALTIME_WEBHOOK_POLL_MS,
    realtimeSocketEventsPerSecond: env.REALTIME_SOCKET_EVENTS_PER_SECOND,
    realtimeMaxPayloadBytes: env.REALTIME_MAX_PAYLOAD_BYTES,
    realtimeSocketBytesPerSecond: env.REALTIME_SOCKET_BYTES_PER_SECOND,
    realtimeMaxSocketsPerIp: env.REALTIME_MAX_SOCKETS_PER_IP,
    realtimeMaxSocketsPerUser: env.REALTIME_MAX_SOCKETS_PER_USER,
    realtimeIpEventsPerSecond: env.REALTIME_IP_EVENTS_PER_SECOND,
    realtimeServerEventsPerSecond: env.REALTIME_SERVER_EVENTS_PER_SECOND,
    realtimeCredentialCheckMs: env.REALTIME_CREDENTIAL_CHECK_MS,
    realtimeMessageRetentionDays: env.REALTIME_MESSAGE_RETENTION_DAYS,
    http: {
      // Unset: derived from the open-file limit when the server starts (see platform/fd-limit.ts).
      maxConnections: env.MAX_CONNECTIONS,
      headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_MS,
      // A socket silent this long is closed; by default longer than any request may legitimately
      // stay silent (a function invocation, admin SQL).
      idleTimeoutMs:
        env.HTTP_IDLE_TIMEOUT_MS ??
        Math.max(120_000, env.FUNCTIONS_TIMEOUT_MS + 10_000, env.RAW_SQL_TIMEOUT_MS + 10_000),
      keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    },
    logLevel: env.LOG_LEVEL,
    logFormat: env.LOG_FORMAT,
    logs: {
      store: env.LOGS_STORE,
      bufferMax: env.LOGS_BUFFER_MAX,
      batchSize: env.LOGS_BATCH_SIZE,
      flushIntervalMs: env.LOGS_FLUSH_INTERVAL_MS,
      maintenanceIntervalMs: env.LOGS_MAINTENANCE_INTERVAL_MS,
    },
    openrouterApiKey: env.OPENROUTER_API_KEY,
    ai: {
      baseUrl: env.OPENROUTER_BASE_URL.replace(/\/+$/, ''),
      maxRetries: env.OPENROUTER_MAX_RETRIES,
      maxCompletionTokens: env.MAX_COMPLETION_TOKENS,
    },
    functions: {
      runtimePort: env.FUNCTIONS_RUNTIME_PORT,
      timeoutMs: env.FUNCTIONS_TIMEOUT_MS,
      memoryMb: env.FUNCTIONS_MEMORY_MB,
      healthIntervalMs: env.FUNCTIONS_HEALTH_INTERVAL_MS,
      denoPath: env.FUNCTIONS_DENO_PATH,
      sandbox: env.FUNCTIONS_SANDBOX,
      origin: env.FUNCTIONS_ORIGIN ? new URL(env.FUNCTIONS_ORIGIN).origin : undefined,
      // Where clients invoke functions: the functions origin when set, else the API's.
      baseUrl: env.FUNCTIONS_ORIGIN ? new URL(env.FUNCTIONS_ORIGIN).origin : apiBaseUrlOf(env),
    },
    outboundAllowedOrigins: env.OUTBOUND_ALLOWED_ORIGINS,
    schedules: {
      pollMs: env.SCHEDULES_POLL_MS,
      runTimeoutMs: env.SCHEDULES_RUN_TIMEOUT_MS,
      missedRunGraceMs: env.SCHEDULES_MISSED_RUN_GRACE_MS,
      maxConcurrentRuns: env.SCHEDULES_MAX_CONCURRENT_RUNS,
    },
    backups: {
      pollMs: env.BACKUPS_POLL_MS,
      includeFiles: env.BACKUPS_INCLUDE_FILES,
      restoreTimeoutMs: env.BACKUPS_RESTORE_TIMEOUT_MS,
    },
    metricsAccess: env.METRICS_ACCESS,
    // Where the processor SDK sends its calls (unset: the processor's own API); tests use a fake.
    paymentsProcessor: {
      host: env.PAYMENTS_PROCESSOR_HOST,
      port: env.PAYMENTS_PROCESSOR_PORT,
      protocol: env.PAYMENTS_PROCESSOR_PROTOCOL,
      maxNetworkRetries: env.PAYMENTS_PROCESSOR_MAX_RETRIES,
    },
    razorpay: {
      baseUrl: env.RAZORPAY_API_BASE_URL,
      timeoutMs: env.RAZORPAY_TIMEOUT_MS,
      webhookSecretGraceSeconds: env.RAZORPAY_WEBHOOK_SECRET_GRACE_SECONDS,
    },
    sites: {
      domain: env.SITES_DOMAIN?.toLowerCase(),
      builds: env.SITES_BUILDS,
      buildTimeoutMs: env.SITES_BUILD_TIMEOUT_MS,
      buildMemoryMb: env.SITES_BUILD_MEMORY_MB,
      maxFileBytes: env.SITES_MAX_FILE_BYTES,
      maxTotalBytes: env.SITES_MAX_TOTAL_BYTES,
      maxFiles: env.SITES_MAX_FILES,
    },
    storage: {
      backend: env.STORAGE_BACKEND,
      dir: path.resolve(env.STORAGE_DIR ?? path.join(env.PLINTH_DATA_DIR, 'storage')),
      maxFileSizeBytes: env.STORAGE_MAX_FILE_SIZE_BYTES,
      resumableExpirySeconds: env.STORAGE_RESUMABLE_EXPIRY_SECONDS,
      quotaBytes: env.STORAGE_QUOTA_BYTES,
      // The signing region: the storage setting, then the AWS one, then us-east-2.
      region: env.STORAGE_S3_REGION ?? env.AWS_REGION ?? 'us-east-2',
      s3: env.STORAGE_S3_BUCKET
        ? {
            bucket: env.STORAGE_S3_BUCKET,
            prefix: env.STORAGE_S3_PREFIX,
            endpoint: env.STORAGE_S3_ENDPOINT,
            forcePathStyle: env.STORAGE_S3_FORCE_PATH_STYLE,
            accessKeyId: env.STORAGE_S3_ACCESS_KEY_ID,
            secretAccessKey: env.STORAGE_S3_SECRET_ACCESS_KEY,
          }
        : undefined,
      images: {
        maxSourcePixels: env.STORAGE_IMAGE_MAX_SOURCE_PIXELS,
        maxSourceBytes: env.STORAGE_IMAGE_MAX_SOURCE_BYTES,
        maxDimension: env.STORAGE_IMAGE_MAX_DIMENSION,
        concurrency: env.STORAGE_IMAGE_CONCURRENCY,
        queue: env.STORAGE_IMAGE_QUEUE,
        timeoutSeconds: env.STORAGE_IMAGE_TIMEOUT_SECONDS,
        cacheMaxBytes: env.STORAGE_IMAGE_CACHE_MAX_BYTES,
        cacheMaxAgeSeconds: env.STORAGE_IMAGE_CACHE_MAX_AGE_SECONDS,
      },
    },
  }));

export type Config = z.output<typeof envSchema>;

export class ConfigError extends Error {}

/** Reads the configuration from an environment, or throws one error naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const result = envSchema.safeParse(present);
  if (result.success) return result.data;
  const problems = result.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
  throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
}
