// The tool's HTTP client for a Plinth server: the API key on every request, JSON in and out, and the
// server's error (message, code, nextActions, details) turned into one CliError line.
import { CliError, oneLine } from './cli-error.js';
import type { ServerConfig } from './project-config.js';
import {
  migrationCreated,
  migrationHistory,
  type AppliedMigration,
} from '../src/modules/migrations/migrations.schemas.js';

export interface RequestOptions {
  /** A JSON body. */
  json?: unknown;
  /** A raw body (a stream needs `size` for its content length). */
  body?: BodyInit;
  headers?: Record<string, string>;
  query?: Record<string, string | number | undefined>;
}

export interface ApiClient {
  readonly url: string;
  /** Any route; answers the parsed JSON body (undefined when empty). */
  call<T = unknown>(method: string, path: string, options?: RequestOptions): Promise<T>;
  /** Any route; answers the response itself (a successful one) for streaming bodies. */
  send(method: string, path: string, options?: RequestOptions): Promise<Response>;
  history(): Promise<AppliedMigration[]>;
  apply(migration: { version: string; name: string; sql: string }): Promise<AppliedMigration>;
  /** The generated `Database` type (GET /api/database/types?lang=typescript), as TypeScript text. */
  types(): Promise<string>;
}

interface ErrorBody {
  error?: string;
  message?: string;
  nextActions?: string;
  details?: unknown;
}

async function failure(res: Response): Promise<CliError> {
  const text = await res.text();
  let body: ErrorBody | undefined;
  try {
    body = text ? (JSON.parse(text) as ErrorBody) : undefined;
  } catch {
    body = undefined;
  }
  const extra = { code: body?.error, nextActions: body?.nextActions, details: body?.details, status: res.status };
  // A 403 FORBIDDEN is the SQL guard refusing a statement, not the key being refused.
  if (res.status === 401 || (res.status === 403 && body?.error !== 'FORBIDDEN')) {
    return new CliError(
      oneLine(
        `The server refused the API key (${res.status}): ${body?.message ?? res.statusText}`,
        'Check PLINTH_API_KEY (or --api-key) or run `plinth login` again.',
      ),
      extra,
    );
  }
  return new CliError(
    oneLine(body?.message ?? `The server answered ${res.status} ${res.statusText}.`, body?.nextActions),
    extra,
  );
}

export function createApiClient(server: ServerConfig, fetchImpl: typeof fetch = fetch): ApiClient {
  async function send(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const query = Object.entries(options.query ?? {}).filter(([, v]) => v !== undefined);
    const search = query.length ? `?${new URLSearchParams(query.map(([k, v]) => [k, String(v)]))}` : '';
    let res: Response;
    try {
      res = await fetchImpl(`${server.url}${path}${search}`, {
        method,
        headers: {
          'x-api-key': server.apiKey,
          ...(options.json !== undefined ? { 'content-type': 'application/json' } : {}),
          ...options.headers,
        },
        body: options.json !== undefined ? JSON.stringify(options.json) : options.body,
        ...(options.body instanceof ReadableStream ? { duplex: 'half' } : {}),
      } as RequestInit);
    } catch (err) {
      const reason = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new CliError(
        `Cannot reach Plinth at ${server.url} (${reason?.code ?? reason?.message ?? (err as Error).message}). Check the URL (--url, PLINTH_URL or \`plinth login\`) and that the server is running.`,
      );
    }
    if (!res.ok) throw await failure(res);
    return res;
  }

  async function call<T>(method: string, path: string, options?: RequestOptions): Promise<T> {
    const text = await (await send(method, path, options)).text();
    try {
      return (text ? JSON.parse(text) : undefined) as T;
    } catch {
      // Not JSON: callers that check the shape say which answer was wrong.
      return undefined as T;
    }
  }

  return {
    url: server.url,
    call,
    send,
    async history() {
      const parsed = migrationHistory.safeParse(await call('GET', '/api/database/migrations'));
      if (!parsed.success)
        throw new CliError(`${server.url} did not answer like a Plinth server (migration history). Check the URL.`);
      return parsed.data.migrations;
    },
    async apply(migration) {
      const parsed = migrationCreated.safeParse(await call('POST', '/api/database/migrations', { json: migration }));
      if (!parsed.success)
        throw new CliError(`${server.url} did not answer like a Plinth server (applying a migration).`);
      return parsed.data;
    },
    async types() {
      const text = await (await send('GET', '/api/database/types?lang=typescript')).text();
      if (!text.includes('export type Database'))
        throw new CliError(`${server.url} did not answer like a Plinth server (generated types). Check the URL.`);
      return text;
    },
  };
}
