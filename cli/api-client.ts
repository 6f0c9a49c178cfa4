// The tool's HTTP client for the migrations and generated-types API: the API key on every request, the server's
// error message (and its hint) turned into one CliError line.
import { CliError, oneLine } from './cli-error.js';
import type { ServerConfig } from './project-config.js';
import {
  migrationCreated,
  migrationHistory,
  type AppliedMigration,
} from '../src/modules/migrations/migrations.schemas.js';

export interface ApiClient {
  history(): Promise<AppliedMigration[]>;
  apply(migration: { version: string; name: string; sql: string }): Promise<AppliedMigration>;
  /** The generated `Database` type (GET /api/database/types?lang=typescript), as TypeScript text. */
  types(): Promise<string>;
}

export function createApiClient(server: ServerConfig, fetchImpl: typeof fetch = fetch): ApiClient {
  async function call(method: string, path: string, body?: unknown): Promise<unknown> {
    return (await send(method, path, body)).json;
  }

  async function send(method: string, path: string, body?: unknown): Promise<{ text: string; json: unknown }> {
    let res: Response;
    try {
      res = await fetchImpl(`${server.url}${path}`, {
        method,
        headers: { 'x-api-key': server.apiKey, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
    } catch (err) {
      const reason = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new CliError(
        `Cannot reach Plinth at ${server.url} (${reason?.code ?? reason?.message ?? (err as Error).message}). Check the URL (PLINTH_URL or \`plinth login\`) and that the server is running.`,
      );
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (!res.ok) {
      const error = json as { error?: string; message?: string; nextActions?: string } | undefined;
      // A 403 FORBIDDEN is the SQL guard refusing a statement, not the key being refused.
      if (res.status === 401 || (res.status === 403 && error?.error !== 'FORBIDDEN')) {
        throw new CliError(
          oneLine(
            `The server refused the API key (${res.status}): ${error?.message ?? res.statusText}`,
            'Check PLINTH_API_KEY or run `plinth login` again.',
          ),
        );
      }
      throw new CliError(
        oneLine(error?.message ?? `The server answered ${res.status} ${res.statusText}.`, error?.nextActions),
      );
    }
    return { text, json };
  }

  return {
    async history() {
      const parsed = migrationHistory.safeParse(await call('GET', '/api/database/migrations'));
      if (!parsed.success)
        throw new CliError(`${server.url} did not answer like a Plinth server (migration history). Check the URL.`);
      return parsed.data.migrations;
    },
    async apply(migration) {
      const parsed = migrationCreated.safeParse(await call('POST', '/api/database/migrations', migration));
      if (!parsed.success)
        throw new CliError(`${server.url} did not answer like a Plinth server (applying a migration).`);
      return parsed.data;
    },
    async types() {
      const { text } = await send('GET', '/api/database/types?lang=typescript');
      if (!text.includes('export type Database'))
        throw new CliError(`${server.url} did not answer like a Plinth server (generated types). Check the URL.`);
      return text;
    },
  };
}
