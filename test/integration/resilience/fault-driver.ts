// Drives a listening Plinth with concurrent record inserts and reads over real HTTP while a test
// injects database faults, and keeps what every client saw (status, Retry-After, time taken).
import type postgres from 'postgres';

export interface Outcome {
  kind: 'insert' | 'read';
  status: number;
  /** null when the client gave up (the server did not answer in time). */
  retryAfter: string | null;
  error?: string;
  ms: number;
  id?: string;
}

export interface LoadRun {
  outcomes: Outcome[];
  /** Ids whose insert was acknowledged with 201. */
  acked: string[];
  stop(): Promise<void>;
}

/** Polls a condition until it holds or the bound passes (the server is a real process). */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  boundMs: number,
  what: string,
): Promise<void> {
  const until = Date.now() + boundMs;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * `workers` loops, each inserting a row with a unique id and then reading it back, until stop().
 * A request the server does not answer within `clientGiveUpMs` is recorded with status 0.
 */
export function driveLoad(
  baseUrl: string,
  table: string,
  token: string,
  workers: number,
  clientGiveUpMs: number,
): LoadRun {
  const outcomes: Outcome[] = [];
  const acked: string[] = [];
  let running = true;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

  async function timed(kind: Outcome['kind'], id: string, init: RequestInit & { url: string }): Promise<Outcome> {
    const started = performance.now();
    try {
      const res = await fetch(init.url, { ...init, signal: AbortSignal.timeout(clientGiveUpMs) });
      const body = await res.text();
      const error = res.status >= 300 ? body.slice(0, 200) : undefined;
      return {
        kind,
        id,
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
        error,
        ms: performance.now() - started,
      };
    } catch (err) {
      return { kind, id, status: 0, retryAfter: null, error: String(err), ms: performance.now() - started };
    }
  }

  async function worker(w: number): Promise<void> {
    for (let i = 0; running; i++) {
      const id = `w${w}-${i}-${Math.random().toString(36).slice(2, 8)}`;
      const insert = await timed('insert', id, {
        url: `${baseUrl}/api/database/records/${table}`,
        method: 'POST',
        headers: { ...headers, prefer: 'return=minimal' },
        body: JSON.stringify([{ id, note: `row ${i}` }]),
      });
      outcomes.push(insert);
      if (insert.status === 201) acked.push(id);
      outcomes.push(
        await timed('read', id, {
          url: `${baseUrl}/api/database/records/${table}?id=eq.${id}`,
          method: 'GET',
          headers,
        }),
      );
    }
  }

  const done = Promise.all(Array.from({ length: workers }, (_, w) => worker(w)));
  return {
    outcomes,
    acked,
    async stop() {
      running = false;
      await done;
    },
  };
}

/** Terminates the backends of one server (its application_name) on one database; returns how many. */
export async function terminateBackends(
  admin: postgres.Sql,
  database: string,
  applicationName: string,
): Promise<number> {
  const rows = await admin`
    select pg_terminate_backend(pid) as ok from pg_stat_activity
    where datname = ${database} and application_name = ${applicationName} and pid <> pg_backend_pid()`;
  return rows.filter((r) => r.ok).length;
}
