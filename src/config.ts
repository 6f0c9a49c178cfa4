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

/**
 * Every setting: its validation, its default and, in `.describe()`/`.meta()`, what it does: the source of
 * docs/reference/configuration.md (`npm run docs:config`; a test fails when the page is stale).
 */
export const settingsSchema = z.object({
  PORT: port.default(7130).describe('HTTP port'),
  HOST: z.string().min(1).default('0.0.0.0').describe('interface to listen on'),
  API_BASE_URL: z.url().optional().meta({
    description: 'public base URL (email links, OAuth callbacks, cookie `Secure` flag)',
    defaultText: '`http://localhost:$PORT`',
  }),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional()
    .meta({ description: '`postgres://…` of an external PostgreSQL (13+)', defaultText: 'unset → embedded' }),
  PLINTH_DATA_DIR: z.string().min(1).default('./.plinth').describe('embedded database, generated encryption key'),
  EMBEDDED_PG_PORT: port.default(7134).describe('loopback port of the embedded PostgreSQL'),
  ADMIN_EMAIL: z.email().optional().meta({ description: 'project admin sign-in', defaultText: '`admin@plinth.local`' }),
  ADMIN_PASSWORD: z
    .string()
    .min(8)
    .max(4096)
    .optional()
    .meta({ description: 'project admin password (min 8 characters)', defaultText: 'generated on first start' }),
  PLINTH_ENCRYPTION_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters (32 bytes)')
    .optional()
    .meta({
      description: 'master key for secrets at rest, 64 hex characters',
      defaultText: 'generated into `$PLINTH_DATA_DIR/encryption.key`',
    }),
  PLINTH_PREVIOUS_ENCRYPTION_KEYS: z
    .string()
    .regex(/^[0-9a-fA-F]{64}(,[0-9a-fA-F]{64})*$/, 'must be comma-separated keys of 64 hex characters')
    .optional()
    .describe('comma-separated retired master keys: they still decrypt, never encrypt (key rotation)'),
  // Passkeys (WebAuthn): the relying party. Unset: API_BASE_URL's host name and origin.
  WEBAUTHN_RP_ID: z
    .string()
    .regex(/^[a-z0-9.-]+$/i, 'must be a host name, such as example.com')
    .optional()
    .meta({
      description: 'passkeys: the relying-party id (a registrable domain of every origin below)',
      defaultText: 'host name of `API_BASE_URL`',
    }),
  WEBAUTHN_RP_NAME: z.string().min(1).max(100).default('Plinth').describe('passkeys: the name authenticators show'),
  WEBAUTHN_ORIGINS: z
    .string()
    .refine((list) => list.split(',').every((o) => URL.canParse(o.trim()) && new URL(o.trim()).origin === o.trim()), {
      message: 'must be comma-separated origins, such as https://app.example.com',
    })
    .optional()
    .meta({
      description: 'passkeys: comma-separated origins whose pages may register and sign in',
      defaultText: 'origin of `API_BASE_URL`',
    }),
  ACCESS_TOKEN_TTL_SECONDS: seconds.default(15 * 60).describe('access token lifetime'),
  REFRESH_TOKEN_TTL_SECONDS: seconds
    .default(7 * 24 * 60 * 60)
    .describe('refresh token (session) lifetime, sliding on each refresh'),
  REFRESH_REUSE_GRACE_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .default(10)
    .describe('window in which a concurrent refresh of one token gets the same successor'),
  // Access tokens whose lifetime (exp − iat) is longer are refused, however they were signed
  // (default: 1 h, or ACCESS_TOKEN_TTL_SECONDS when that is longer).
  ACCESS_TOKEN_MAX_LIFETIME_SECONDS: seconds.optional().meta({
    description:
      'access tokens whose lifetime (`exp` − `iat`) is longer are refused, however they were signed (at least `ACCESS_TOKEN_TTL_SECONDS`)',
    defaultText: '`3600`, or `ACCESS_TOKEN_TTL_SECONDS` when that is longer',
  }),
  SMTP_HOST: z.string().min(1).optional().meta({
    description:
      'SMTP server for sign-in codes, verification and reset emails (the admin API `PUT /api/auth/smtp-config` overrides it)',
    defaultText: 'unset → emails are logged',
  }),
  SMTP_PORT: port.default(587).describe('SMTP port'),
  SMTP_SECURE: flag.default(false).describe('TLS from the first byte (port 465); otherwise STARTTLS when offered'),
  SMTP_USERNAME: z.string().optional().describe('SMTP login'),
  SMTP_PASSWORD: z.string().optional().describe('SMTP login'),
  SMTP_SENDER_EMAIL: z
    .email()
    .optional()
    .meta({ description: 'From address', defaultText: 'required with `SMTP_HOST`' }),
  SMTP_SENDER_NAME: z.string().default('Plinth').describe('From name'),
  RECORDS_MAX_ROWS: z.coerce.number().int().min(1).default(1000).describe('most rows one records read returns'),
  RECORDS_SCHEMAS: z
    .string()
    .regex(/^[a-z_][a-z0-9_]*(,[a-z_][a-z0-9_]*)*$/, 'must be comma-separated schema names')
    .default('public')
    .describe('schemas the records API exposes (`?schema=`, `Accept-Profile`)'),
  RAW_SQL_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1)
    .max(3_600_000)
    .default(30_000)
    .describe(
      "statement timeout of admin SQL (`POST /api/database/advance/rawsql`; 504 past it), and of the admin's records and RPC statements",
    ),
  CORS_ORIGINS: z
    .string()
    .default('*')
    .describe('comma-separated allowed origins (`*` reflects any origin, with credentials)'),
  COOKIE_SECURE: flag.optional().meta({
    description: '`Secure; SameSite=None` refresh cookies when true, `SameSite=Lax` otherwise',
    defaultText: 'from `API_BASE_URL` (https → true)',
  }),
  MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024)
    .describe('largest JSON body accepted (413 above)'),
  // Nesting of objects/arrays in a JSON body (and any JSON value bound for SQL); 1000 at most.
  MAX_JSON_DEPTH: z.coerce
    .number()
    .int()
    .min(2)
    .max(1000)
    .default(64)
    .describe('deepest nesting of objects/arrays in a JSON body (400 `VALIDATION_ERROR` above; at most 1000)'),
  // Statement timeouts of records, RPC and storage statements by role (0: none), as Supabase's.
  ANON_STATEMENT_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(3_600_000)
    .default(3_000)
    .describe('statement timeout of records, RPC and storage statements run as `anon` (504 past it; 0: none)'),
  AUTHENTICATED_STATEMENT_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(3_600_000)
    .default(8_000)
    .describe(
      'the same for signed-in users (`authenticated`); the admin through the records API gets `RAW_SQL_TIMEOUT_MS`',
    ),
  PASSWORD_HASH_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .default(availableParallelism())
    .meta({ description: 'argon2id hashes running at once', defaultText: 'number of cores' }),
  // Password checks waiting for a hashing slot before more are refused with 503 + Retry-After.
  PASSWORD_HASH_QUEUE_MAX: z.coerce
    .number()
    .int()
    .min(0)
    .default(64)
    .describe('password checks waiting for a hashing slot; past it sign-ins are refused with 503 and `Retry-After`'),
  DB_POOL_SIZE: z.coerce.number().int().min(1).default(20).describe('PostgreSQL connections per server'),
  // Requests waiting for a database connection before new ones get 503 (default: 2 × the pool).
  DB_POOL_QUEUE_MAX: z.coerce.number().int().min(0).optional().meta({
    description:
      "Requests that may wait for a database connection; the next one gets 503 with `Retry-After` at once. Two waiting per connection keeps an accepted request's wait to about two transactions (a few ms), so its latency stays near the unloaded one; raise it for bursty traffic, lower it to shed sooner",
    defaultText: '2 × `DB_POOL_SIZE`',
  }),
  // Connections the requests of one database role may use at once (up to DB_POOL_QUEUE_MAX more
  // wait; past that 503 at once), so slow anonymous queries cannot take the pool from signed-in users. Defaults:
  // anon half the pool, authenticated three quarters (at least 1 each); project_admin unbounded.
  DB_POOL_ANON_SHARE: z.coerce.number().int().min(1).optional().meta({
    description:
      'connections requests running as `anon` may hold at once (up to `DB_POOL_QUEUE_MAX` more wait, past that 503 at once), so slow anonymous queries cannot take the pool from signed-in users',
    defaultText: 'half of `DB_POOL_SIZE` (at least 1)',
  }),
  DB_POOL_AUTHENTICATED_SHARE: z.coerce.number().int().min(1).optional().meta({
    description: 'the same for signed-in users (`authenticated`); `project_admin` is not bounded',
    defaultText: 'three quarters of `DB_POOL_SIZE` (at least 1)',
  }),
  // Admission's adaptive limit on requests in flight (between the floor, default the pool size,
  // and the pool plus its queue; it refuses only while every connection is held, so a floor
  // below the pool acts as the pool): while refusing, it shrinks when latency passes the tolerance
  // (× the lowest median latency of a window without refusals, remembered for the baseline
  // period); it moves once a window.
  ADMISSION_MIN_CONCURRENCY: z.coerce.number().int().min(1).optional().meta({
    description:
      'Admission at the door keeps requests in flight under an adaptive limit: at most `DB_POOL_SIZE` + `DB_POOL_QUEUE_MAX`, never below this floor. It refuses only while as many connections as the limit are held (all, or fewer once below the pool max), and only shrinks while it is refusing, so clients that wait for their answers are never turned away for being many',
    defaultText: '`2` (or `DB_POOL_SIZE` if smaller)',
  }),
  ADMISSION_LATENCY_TOLERANCE: z.coerce
    .number()
    .min(1)
    .max(100)
    .default(2)
    .describe(
      'while requests are refused and the median latency of a window passes this multiple of the baseline (the lowest median of a window without refusals), the limit shrinks in proportion (at most by half a window); within it, it grows back by √limit a window',
    ),
  ADMISSION_WINDOW_MS: z.coerce
    .number()
    .int()
    .min(1)
    .max(60_000)
    .default(100)
    .describe('the limit moves at most once per window (a window closes once it also holds 5 answers)'),
  ADMISSION_BASELINE_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(86_400_000)
    .default(60_000)
    .describe(
      'how long the baseline latency is remembered when no lower one is seen (one to two periods); windows with refusals never move it, so sustained overload cannot raise it',
    ),
  // Server-side deadline of a request (function calls and admin SQL get their own timeout + 1 s).
  REQUEST_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(3_600_000)
    .default(30_000)
    .describe(
      'Server-side deadline of a request, counted from when its body has arrived: past it the client gets 503 `SERVICE_UNAVAILABLE` with `Retry-After`, and the database work is cancelled. Function calls get `FUNCTIONS_TIMEOUT_MS` + 1 s and admin SQL `RAW_SQL_TIMEOUT_MS` + 1 s when longer',
    ),
  TRUST_PROXY: flag.default(false).describe('trust `X-Forwarded-*` from a reverse proxy'),
  // Lifecycle and connections: how long SIGTERM waits for in-flight requests, the connection
  // cap (default: from the open-file limit) and the HTTP timeouts.
  SHUTDOWN_GRACE_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(3_600_000)
    .default(20_000)
    .describe(
      "on SIGTERM/SIGINT, how long requests in flight may take to finish before their connections are cut (keep it under the orchestrator's own grace, 30 s in Kubernetes)",
    ),
  // Realtime presence: how often a server records it is alive (silent 3 intervals: dead).
  REALTIME_HEARTBEAT_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(3_600_000)
    .default(10_000)
    .describe(
      'how often a server records that it holds realtime sockets; silent for 3 intervals it is taken for dead and its presence members leave',
    ),
  // Realtime webhooks: how often each server looks for due deliveries (0: never; tests tick).
  REALTIME_WEBHOOK_POLL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(3_600_000)
    .default(1_000)
    .describe('how often each server looks for realtime webhook deliveries coming due (`0`: this server sends none)'),
  // Realtime: subscribe/publish events one socket may send per second (bursts up to as many).
  REALTIME_SOCKET_EVENTS_PER_SECOND: z.coerce
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(100)
    .describe(
      'subscribe and publish events one socket may send per second (a burst of as many passes); past it the client gets `REALTIME_RATE_LIMITED` (publish: a `realtime:error` event; subscribe: the ack) and nothing is stored',
    ),
  // Realtime guards: the largest publish payload (JSON bytes), the payload bytes one socket may
  // publish per second, sockets one client IP / one signed-in user may hold on a server, the
  // subscribe/publish events all sockets of one IP and of the whole server may send per second,
  // how often open sockets' credentials are checked again (expiry, rotated keys), and how many
  // days stored messages are kept when realtime.config sets none (0: kept forever).
  REALTIME_MAX_PAYLOAD_BYTES: z.coerce
    .number()
    .int()
    .min(256)
    .max(16_777_216)
    .default(65_536)
    .describe('largest realtime publish payload (JSON bytes)'),
  REALTIME_SOCKET_BYTES_PER_SECOND: z.coerce
    .number()
    .int()
    .min(256)
    .max(1_073_741_824)
    .default(1_048_576)
    .describe('payload bytes one socket may publish per second'),
  REALTIME_MAX_SOCKETS_PER_IP: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(100)
    .describe('realtime sockets one client IP may hold on a server'),
  REALTIME_MAX_SOCKETS_PER_USER: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(20)
    .describe('realtime sockets one signed-in user may hold on a server'),
  REALTIME_IP_EVENTS_PER_SECOND: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(500)
    .describe('subscribe and publish events all sockets of one IP may send per second'),
  REALTIME_SERVER_EVENTS_PER_SECOND: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(2_000)
    .describe('subscribe and publish events all sockets of one server may send per second'),
  REALTIME_CREDENTIAL_CHECK_MS: z.coerce
    .number()
    .int()
    .min(10)
    .max(3_600_000)
    .default(5_000)
    .describe("how often open sockets' credentials are checked again (expiry, rotated keys)"),
  REALTIME_MESSAGE_RETENTION_DAYS: z.coerce
    .number()
    .int()
    .min(0)
    .max(36_500)
    .default(30)
    .describe('days stored realtime messages are kept when `realtime.config` sets none (`0`: kept forever)'),
  MAX_CONNECTIONS: z.coerce.number().int().min(1).optional().meta({
    description: 'concurrent HTTP connections; past it new connections are closed at once',
    defaultText: 'half of (open-file limit − 64); `1000` where the limit cannot be read',
  }),
  HTTP_HEADERS_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .default(15_000)
    .describe("a request's headers must arrive within this (408 otherwise)"),
  HTTP_REQUEST_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .default(300_000)
    .describe("the whole request, body included, must arrive within this (uploads: size ÷ slowest client's rate)"),
  HTTP_IDLE_TIMEOUT_MS: z.coerce.number().int().min(1_000).optional().meta({
    description: 'a connection silent this long is closed',
    defaultText: 'the largest of 120000, `FUNCTIONS_TIMEOUT_MS` + 10 s, `RAW_SQL_TIMEOUT_MS` + 10 s',
  }),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .default(72_000)
    .describe('idle keep-alive connections are closed after this (above the 60 s of common load balancers)'),
  // AI provider key: seeds the stored OpenRouter key once, when none is stored.
  OPENROUTER_API_KEY: z
    .string()
    .min(1)
    .max(4096)
    .optional()
    .describe(
      'seeds the stored AI provider key once, when none is stored (`PUT /api/ai/openrouter/api-key` changes it later)',
    ),
  // AI gateway: the provider's OpenAI-compatible API, its retries, and the maxTokens cap.
  OPENROUTER_BASE_URL: z
    .url()
    .default('https://openrouter.ai/api/v1')
    .describe("the AI provider's OpenAI-compatible API"),
  OPENROUTER_MAX_RETRIES: z.coerce
    .number()
    .int()
    .min(0)
    .max(10)
    .default(2)
    .describe('automatic retries of a failed AI provider call'),
  MAX_COMPLETION_TOKENS: z.coerce
    .number()
    .int()
    .min(1)
    .default(16384)
    .describe("cap on a chat completion's `maxTokens` (the default sent is 4096)"),
  // Functions: the Deno runtime the server starts (port 0: any free loopback port).
  FUNCTIONS_RUNTIME_PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65535)
    .default(7133)
    .describe('loopback port of the Deno function runtime (`0`: any free port)'),
  FUNCTIONS_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(10)
    .default(60_000)
    .describe('longest one function invocation may run (504 past it)'),
  FUNCTIONS_MEMORY_MB: z.coerce
    .number()
    .int()
    .min(16)
    .default(256)
    .describe('V8 heap cap of each function isolate (`--max-old-space-size`)'),
  FUNCTIONS_HEALTH_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(5_000)
    .describe('how often the server checks the runtime (two misses: restart)'),
  FUNCTIONS_DENO_PATH: z.string().min(1).optional().meta({
    description: 'another Deno executable (needed on other platforms)',
    defaultText: 'Deno from `@deno/linux-x64-glibc` (installed by npm on linux-x64)',
  }),
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
    .transform(parseAllowedOrigins)
    .meta({
      description:
        'comma-separated `scheme://host[:port]` origins that functions, webhooks and schedules may reach although they are loopback, private, link-local or reserved addresses (refused otherwise)',
      defaultText: 'none',
    }),
  // Function answers are sandboxed documents (CSP sandbox + nosniff) unless switched off here.
  FUNCTIONS_SANDBOX: flag
    .default(true)
    .describe(
      'serve function answers as sandboxed documents (CSP `sandbox` and `nosniff`); `false` only with `FUNCTIONS_ORIGIN` set',
    ),
  // A separate origin for function answers (e.g. https://fn.example.com): when set, /functions/*
  // is served only on its host, and that host serves nothing else.
  FUNCTIONS_ORIGIN: z.url().optional().meta({
    description:
      'a separate origin for function answers (e.g. `https://fn.example.com`): `/functions/*` is served only on its host, and that host serves nothing else; must be another host than `API_BASE_URL`',
    defaultText: "unset: functions on the API's origin",
  }),
  // Schedules: how often this server looks for due runs (0: this server never runs schedules),
  // a run's default timeout, how late a due time may be before it counts as missed (downtime),
  // and how many runs this server executes at once.
  SCHEDULES_POLL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(3_600_000)
    .default(1_000)
    .describe('how often a server looks for due runs (`0`: this server runs no schedules)'),
  SCHEDULES_RUN_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(3_600_000)
    .default(300_000)
    .describe("a run's timeout unless the schedule sets `timeoutMs`"),
  SCHEDULES_MISSED_RUN_GRACE_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(60_000)
    .describe('how late a due time may fire before it counts as missed'),
  SCHEDULES_MAX_CONCURRENT_RUNS: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(20)
    .describe('runs one server executes at once'),
  // Scheduled database backups: how often this server checks whether one is due (0: never here).
  BACKUPS_POLL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(3_600_000)
    .default(60_000)
    .describe('how often a server checks whether a scheduled backup is due (`0`: never here)'),
  // Whether backups hold the bytes of stored files (storage objects) besides their metadata.
  BACKUPS_INCLUDE_FILES: flag
    .default(true)
    .describe('whether archives hold the bytes of stored files, not only their metadata'),
  // How long a (synchronous) restore request may take before it is answered 503.
  BACKUPS_RESTORE_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .default(3_600_000)
    .describe('how long a restore request may run before it is answered 503 (the restore itself is not cut short)'),
  // GET /metrics (Prometheus): behind the API key / an admin token, open to anyone, or absent.
  METRICS_ACCESS: z
    .enum(['off', 'api-key', 'public'])
    .default('api-key')
    .describe(
      '`GET /metrics` (Prometheus): behind the API key or an admin token (`api-key`), open to anyone (`public`), or absent (`off`)',
    ),
  PAYMENTS_PROCESSOR_HOST: z.string().min(1).optional().meta({
    description: 'where the processor SDK sends its calls (`http`/`https`); tests point it at a loopback fake',
    defaultText: "the processor's own API",
  }),
  PAYMENTS_PROCESSOR_PORT: port.optional().meta({
    description: 'where the processor SDK sends its calls (`http`/`https`); tests point it at a loopback fake',
    defaultText: "the processor's own API",
  }),
  PAYMENTS_PROCESSOR_PROTOCOL: z.enum(['http', 'https']).optional().meta({
    description: 'where the processor SDK sends its calls (`http`/`https`); tests point it at a loopback fake',
    defaultText: "the processor's own API",
  }),
  PAYMENTS_PROCESSOR_MAX_RETRIES: z.coerce
    .number()
    .int()
    .min(0)
    .max(10)
    .default(2)
    .describe('automatic retries of a failed processor call (with idempotency keys)'),
  // Razorpay (the second processor): where its SDK sends calls, how long one may take, and how
  // long a rotated webhook secret keeps verifying deliveries.
  RAZORPAY_API_BASE_URL: z
    .url()
    .default('https://api.razorpay.com')
    .describe('where the Razorpay SDK sends its calls (tests point it at a loopback peer)'),
  RAZORPAY_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000).describe('longest one Razorpay call may take'),
  RAZORPAY_WEBHOOK_SECRET_GRACE_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .default(86_400)
    .describe('how long a rotated Razorpay webhook secret keeps verifying deliveries'),
  // Logs kept in PostgreSQL (searchable, audit trail): on/off, the in-memory buffer (entries past
  // it are dropped and counted), the batch size and how often the buffer is flushed.
  LOGS_STORE: flag.default(true).describe('keep logs in PostgreSQL (`false`: stdout only, no `/api/logs`)'),
  LOGS_BUFFER_MAX: z.coerce
    .number()
    .int()
    .min(1)
    .default(20_000)
    .describe('entries buffered before new ones are dropped'),
  LOGS_BATCH_SIZE: z.coerce.number().int().min(1).max(5_000).default(2_000).describe('entries per insert'),
  LOGS_FLUSH_INTERVAL_MS: z.coerce.number().int().min(10).default(1_000).describe('how often the buffer is flushed'),
  LOGS_MAINTENANCE_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .default(3_600_000)
    .describe('how often partitions are made ahead and expired ones dropped'),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('pino level (`silent` to turn off)'),
  // Unset: pretty lines when stdout is a terminal, JSON lines otherwise.
  LOG_FORMAT: z.enum(['json', 'pretty']).optional().meta({
    description: 'log lines for people (`pretty`, one line each) or for collectors (`json`)',
    defaultText: '`pretty` on a terminal, else `json`',
  }),
  // Object storage: local disk (default, under the data directory) or an S3 bucket.
  STORAGE_BACKEND: z.enum(['local', 's3']).default('local').describe('where object bytes live: `local` (disk) or `s3`'),
  STORAGE_DIR: z.string().min(1).optional().meta({
    description: 'local backend directory (`tmp/` staging, `blobs/`)',
    defaultText: '`$PLINTH_DATA_DIR/storage`',
  }),
  STORAGE_MAX_FILE_SIZE_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(50 * 1024 * 1024)
    .describe(
      'largest object (REST upload, S3 put, multipart total): 413 / `EntityTooLarge` above; `PUT /api/storage/config {maxFileSizeMb}` overrides it at run time',
    ),
  // Resumable uploads (tus): how long an incomplete upload lives; the total bytes of stored
  // objects plus uploads in progress (0: no quota).
  STORAGE_RESUMABLE_EXPIRY_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .default(24 * 60 * 60)
    .describe('how long an incomplete resumable (tus) upload lives'),
  STORAGE_QUOTA_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(0)
    .describe('total bytes of stored objects plus resumable uploads in progress (`0`: no quota)'),
  STORAGE_S3_BUCKET: z
    .string()
    .min(1)
    .optional()
    .meta({ description: 'backend bucket', defaultText: 'required with `s3`' }),
  STORAGE_S3_PREFIX: z.string().default('').describe('key prefix inside the backend bucket'),
  STORAGE_S3_REGION: z.string().min(1).optional().meta({
    description: 'backend region, and the region gateway clients must sign for',
    defaultText: '`AWS_REGION`, then `us-east-2`',
  }),
  AWS_REGION: z
    .string()
    .min(1)
    .optional()
    .meta({ description: "the S3 backend's region when `STORAGE_S3_REGION` is unset", defaultText: 'none' }),
  STORAGE_S3_ENDPOINT: z
    .url()
    .optional()
    .meta({ description: 'S3-compatible endpoint URL (MinIO, R2, …)', defaultText: 'AWS' }),
  STORAGE_S3_FORCE_PATH_STYLE: flag.default(false).describe('path-style backend requests'),
  STORAGE_S3_ACCESS_KEY_ID: z
    .string()
    .min(1)
    .optional()
    .meta({ description: 'backend credentials', defaultText: 'SDK default chain' }),
  STORAGE_S3_SECRET_ACCESS_KEY: z
    .string()
    .min(1)
    .optional()
    .meta({ description: 'backend credentials', defaultText: 'SDK default chain' }),
  // Sites (the app's front end, docs/sites.md): served at {slug}.localhost:PORT and, when set,
  // at {slug}.SITES_DOMAIN; builds on/off, their time and memory limits; upload limits.
  SITES_DOMAIN: z
    .string()
    .regex(
      /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/i,
      'must be a domain, such as sites.example.com',
    )
    .optional()
    .meta({
      description:
        'Sites are served at `{slug}.SITES_DOMAIN` (and always at `{slug}.localhost:PORT`); point a wildcard DNS record at the server',
      defaultText: 'unset: `*.localhost` only',
    }),
  SITES_BUILDS: flag.default(true).describe('whether Sites may build sources on the server'),
  SITES_BUILD_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(3_600_000)
    .default(600_000)
    .describe('longest a Sites build may run'),
  SITES_BUILD_MEMORY_MB: z.coerce
    .number()
    .int()
    .min(16)
    .max(65_536)
    .default(2048)
    .describe('memory cap of a Sites build'),
  SITES_MAX_FILE_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(50 * 1024 * 1024)
    .describe('largest file of a Sites deployment (413 above)'),
  SITES_MAX_TOTAL_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(500 * 1024 * 1024)
    .describe('largest Sites deployment in total (413 above)'),
  SITES_MAX_FILES: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(20_000)
    .describe('most files in one Sites deployment (413 above)'),
  // Image transformations (docs/storage-images.md): what a source may be, what may be asked,
  // how many run at once and wait, and the variant cache's size.
  STORAGE_IMAGE_MAX_SOURCE_PIXELS: z.coerce
    .number()
    .int()
    .min(1)
    .default(50_000_000)
    .describe('image transformations: width × height (× frames of an animation kept animated) of a source'),
  STORAGE_IMAGE_MAX_SOURCE_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(25 * 1024 * 1024)
    .describe("image transformations: a source's size (checked on the object's row before its bytes are read)"),
  STORAGE_IMAGE_MAX_DIMENSION: z.coerce
    .number()
    .int()
    .min(1)
    .max(16_383)
    .default(2_500)
    .describe('image transformations: `width`, `height`, and every side of an output'),
  STORAGE_IMAGE_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .max(64)
    .default(2)
    .describe("image transformations running at once (each holds one of libuv's four threads)"),
  STORAGE_IMAGE_QUEUE: z.coerce
    .number()
    .int()
    .min(0)
    .default(32)
    .describe('image transformations waiting for a turn; past it 503 with `Retry-After: 1`'),
  STORAGE_IMAGE_TIMEOUT_SECONDS: seconds.default(20).describe("one image transformation's time (then 422)"),
  STORAGE_IMAGE_CACHE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(1024 * 1024 * 1024)
    .describe('size of the transformed-variant cache (`0`: no cache)'),
  STORAGE_IMAGE_CACHE_MAX_AGE_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .default(86_400)
    .describe('`Cache-Control: max-age` of a transformed image whose URL does not pin the version'),
  // Read replicas (issue 38, docs/replicas.md).
  DATABASE_REPLICA_URLS: z
    .string()
    .regex(/^postgres(ql)?:\/\/[^,]+(,\s*postgres(ql)?:\/\/[^,]+)*$/, 'must be comma-separated postgres:// URLs')
    .optional()
    .describe(
      'streaming replicas of the database (comma-separated) for records reads, stable RPC over GET, metadata/types reads and realtime visibility checks',
    ),
  DATABASE_REPLICA_MAX_LAG_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(3_600_000)
    .default(1_000)
    .describe('a replica further behind leaves the rotation until it catches up'),
  DATABASE_REPLICA_CONSISTENCY: z
    .enum(['wait', 'pin'])
    .default('wait')
    .describe(
      "read-your-writes: `wait` for a replica to replay the caller's write (up to DATABASE_REPLICA_WAIT_MS, else the primary), or `pin` the caller to the primary until one has",
    ),
  DATABASE_REPLICA_WAIT_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(10_000)
    .default(50)
    .describe("how long a read waits for a replica to replay the caller's last write"),
  DATABASE_REPLICA_CHECK_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(10)
    .max(60_000)
    .default(200)
    .describe("how often each replica's lag and health are read"),
  // Poolers and the token cache (issue 38, docs/scaling.md).
  ACCESS_TOKEN_CACHE_SIZE: z.coerce
    .number()
    .int()
    .min(0)
    .max(10_000_000)
    .default(10_000)
    .describe('verified access tokens kept per server until their expiry or revocation (`0`: verify every call)'),
  DATABASE_DIRECT_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional()
    .meta({
      description:
        'a direct connection beside a pooled DATABASE_URL, for LISTEN, session advisory locks, admin SQL and migrations',
      defaultText: 'DATABASE_URL',
    }),
  DATABASE_POOLER: z
    .enum(['none', 'transaction'])
    .default('none')
    .describe(
      '`transaction` when DATABASE_URL is a pooler in transaction mode, such as PgBouncer (no prepared statements)',
    ),
  // Cross-server fan-out through a broker (issue 38, docs/realtime-bus.md).
  REALTIME_BUS_URL: z
    .string()
    .regex(/^(nats|rediss?):\/\//, 'must be a nats:// or redis:// URL')
    .optional()
    .meta({
      description:
        'the broker carrying realtime messages and presence between servers (nats:// with JetStream, or redis://)',
      defaultText: 'PostgreSQL NOTIFY',
    }),
  REALTIME_BUS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ and - only (at most 64)')
    .default('plinth')
    .describe("this deployment's subjects and keys on a shared broker"),
  // Upgrades (docs/upgrading.md).
  UPGRADE_BACKUP: z
    .enum(['auto', 'off'])
    .default('auto')
    .describe('a backup before pending platform migrations are applied to a database that has data (`off`: none)'),
  // Sites builds.
  SITES_BUILD_PATH: z.string().min(1).optional().meta({
    description: "the PATH a site's build searches (builds get none of the server's other variables)",
    defaultText: "the server's PATH",
  }),
  PATH: z.string().optional().describe("the server's own PATH (read for site builds only)"),
  // Realtime table changes (issue 38, docs/realtime-logical-replication.md).
  REALTIME_CHANGES: z
    .enum(['triggers', 'logical'])
    .default('triggers')
    .describe(
      'table changes published by triggers in the writing transaction, or read from a logical replication slot by one elected server (needs `wal_level=logical`)',
    ),
  REALTIME_CHANGES_LEADER_POLL_MS: z.coerce
    .number()
    .int()
    .min(50)
    .max(600_000)
    .default(2_000)
    .describe('how often a server that does not lead the change capture tries to take the lead'),
  REALTIME_CHANGES_WAL_WARN_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(1024 * 1024 * 1024)
    .describe('WAL the replication slot may retain before readiness warns'),
});

const envSchema = settingsSchema
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
    for (const key of ['DATABASE_DIRECT_URL', 'DATABASE_POOLER'] as const) {
      if (!env.DATABASE_URL && (key === 'DATABASE_DIRECT_URL' ? env[key] : env[key] === 'transaction')) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: 'needs DATABASE_URL (the embedded database has no pooler)',
        });
      }
    }
    if (env.DATABASE_POOLER === 'transaction' && env.DATABASE_URL && !env.DATABASE_DIRECT_URL) {
      ctx.addIssue({
        code: 'custom',
        path: ['DATABASE_DIRECT_URL'],
        message: 'is required with DATABASE_POOLER=transaction (LISTEN and session locks need a direct connection)',
      });
    }
    if (env.STORAGE_BACKEND === 's3' && !env.STORAGE_S3_BUCKET) {
      ctx.addIssue({ code: 'custom', path: ['STORAGE_S3_BUCKET'], message: 'is required when STORAGE_BACKEND is s3' });
    }
  })
  .transform((env) => ({
    // Issue 38: the realtime bus (undefined: PostgreSQL NOTIFY).
    realtimeBus: env.REALTIME_BUS_URL ? { url: env.REALTIME_BUS_URL, prefix: env.REALTIME_BUS_PREFIX } : undefined,
    webauthn: {
      rpId: env.WEBAUTHN_RP_ID ?? new URL(apiBaseUrlOf(env)).hostname,
      rpName: env.WEBAUTHN_RP_NAME,
      origins: env.WEBAUTHN_ORIGINS?.split(',').map((o) => o.trim()) ?? [new URL(apiBaseUrlOf(env)).origin],
    },
    port: env.PORT,
    host: env.HOST,
    apiBaseUrl: apiBaseUrlOf(env),
    databaseUrl: env.DATABASE_URL,
    // Read replicas (issue 38).
    replicas: {
      urls: env.DATABASE_REPLICA_URLS?.split(',').map((u) => u.trim()) ?? [],
      maxLagMs: env.DATABASE_REPLICA_MAX_LAG_MS,
      consistency: env.DATABASE_REPLICA_CONSISTENCY,
      waitMs: env.DATABASE_REPLICA_WAIT_MS,
      checkIntervalMs: env.DATABASE_REPLICA_CHECK_INTERVAL_MS,
    },
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
    realtimeChanges: {
      mode: env.REALTIME_CHANGES,
      leaderPollMs: env.REALTIME_CHANGES_LEADER_POLL_MS,
      walWarnBytes: env.REALTIME_CHANGES_WAL_WARN_BYTES,
    },
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
    // Upgrades (issue 39): the automatic backup before pending platform migrations are applied.
    upgradeBackup: env.UPGRADE_BACKUP,
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
      buildPath: env.SITES_BUILD_PATH ?? env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
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
    // Scaling (issue 38a).
    accessTokenCacheSize: env.ACCESS_TOKEN_CACHE_SIZE,
    databaseDirectUrl: env.DATABASE_DIRECT_URL,
    databasePooler: env.DATABASE_POOLER,
  }));

export type Config = z.output<typeof envSchema>;

export class ConfigError extends Error {}

/** Reads the configuration from an environment, or throws one error naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const result = envSchema.safeParse(present);
  if (result.success) return result.data;
  const problems = result.error.issues.map((i) => {
    const name = String(i.path[0] ?? '');
    const value = present[name];
    return `  ${i.path.join('.')}: ${i.message}${value === undefined ? '' : ` (${shownValue(name, value)})`}`;
  });
  throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
}

/** Settings whose values are secrets: an error names them and never echoes them. */
const SECRET_SETTING = /(PASSWORD|SECRET|TOKEN|_KEY)$/;

/** The bad value as an error may show it: secrets hidden, passwords inside URLs masked. */
function shownValue(name: string, value: string): string {
  if (SECRET_SETTING.test(name)) return `the value is a secret and not shown; it has ${value.length} characters`;
  const masked = value.replace(/(\/\/[^:/@\s]*:)[^@\s]*@/g, '$1***@');
  return `got ${JSON.stringify(masked.length > 200 ? `${masked.slice(0, 200)}…` : masked)}`;
}
