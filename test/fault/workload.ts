// What the fault tests drive at a listening server and how they judge it: timed requests that
// count hangs, writers (inserts and uploads, each with a unique client id) that record what was
// acknowledged, the check that every acknowledged write is still there, and recovery timing.
import { randomBytes } from 'node:crypto';
import type { ServerProcess } from '../harness/server-process.js';

/** The server-side deadlines the fault tests run with (names as the server reads them). */
export const DEADLINES = {
  REQUEST_TIMEOUT_MS: '5000',
  ANON_STATEMENT_TIMEOUT_MS: '1000',
  AUTHENTICATED_STATEMENT_TIMEOUT_MS: '3000',
  SHUTDOWN_GRACE_MS: '10000',
};
/** A request unanswered this long after it was sent hangs: the server deadline plus a margin. */
export const HANG_MS = Number(DEADLINES.REQUEST_TIMEOUT_MS) + 3_000;
/** After a fault ends, the server answers normally again within this bound. */
export const RECOVERY_BOUND_MS = 15_000;
/** Embedded PostgreSQL restarts with crash recovery: a wider bound than a lost connection. */
export const EMBEDDED_RECOVERY_BOUND_MS = 30_000;

export const TABLE = 'fault_rows';
export const BUCKET = 'fault-files';

export interface Outcome {
  status: number; // 0: no HTTP answer (network error); -1: hung past the client deadline
  ms: number;
  body: string;
  headers: Headers | null;
}

/** One request with a client-side deadline; never throws. */
export async function timed(url: string, init: RequestInit = {}, hangMs = HANG_MS): Promise<Outcome> {
  const started = performance.now();
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(hangMs) });
    const body = await res.text();
    return { status: res.status, ms: performance.now() - started, body, headers: res.headers };
  } catch (err) {
    const hung = (err as Error).name === 'TimeoutError';
    return {
      status: hung ? -1 : 0,
      ms: performance.now() - started,
      body: String((err as Error).cause ?? err),
      headers: null,
    };
  }
}

export const apiKeyHeaders = (s: ServerProcess) => ({ 'x-api-key': s.apiKey });
export const anonHeaders = (s: ServerProcess) => ({ authorization: `Bearer ${s.anonKey}` });

/** A table anon may read but not write, and a private bucket, created through the API. */
export async function createFixtures(s: ServerProcess): Promise<void> {
  const migration = await fetch(`${s.baseUrl}/api/database/migrations`, {
    method: 'POST',
    headers: { ...apiKeyHeaders(s), 'content-type': 'application/json' },
    body: JSON.stringify({
      version: '1',
      name: 'fault-table',
      sql: `create table public.${TABLE} (id bigserial primary key, client_id text not null unique, body text, payload jsonb);
            create policy anon_read on public.${TABLE} for select to anon using (true);
            create policy user_read on public.${TABLE} for select to authenticated using (true);`,
    }),
  });
  if (migration.status !== 201 && migration.status !== 200)
    throw new Error(`migration: ${migration.status} ${await migration.text()}`);
  const bucket = await fetch(`${s.baseUrl}/api/storage/buckets`, {
    method: 'POST',
    headers: { ...apiKeyHeaders(s), 'content-type': 'application/json' },
    body: JSON.stringify({ bucketName: BUCKET, isPublic: false }),
  });
  if (bucket.status !== 201) throw new Error(`bucket: ${bucket.status} ${await bucket.text()}`);
}

export const insertRow = (s: ServerProcess, clientId: string) =>
  timed(`${s.baseUrl}/api/database/records/${TABLE}`, {
    method: 'POST',
    headers: { ...apiKeyHeaders(s), 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: clientId, body: 'x' }),
  });

export const uploadObject = (s: ServerProcess, key: string, bytes: Buffer) =>
  timed(`${s.baseUrl}/api/storage/buckets/${BUCKET}/objects/${key}`, {
    method: 'PUT',
    headers: { ...apiKeyHeaders(s), 'content-type': 'application/octet-stream' },
    body: new Uint8Array(bytes),
  });

/** A normal anon read (one row by primary key): what "others" do during a flood. */
export const normalRead = (s: ServerProcess, hangMs = HANG_MS, headers: Record<string, string> = anonHeaders(s)) =>
  timed(`${s.baseUrl}/api/database/records/${TABLE}?id=eq.1`, { headers }, hangMs);

/** A signed-in user's headers: a role apart from anon, with a share of the pool of its own. */
export async function signedInHeaders(s: ServerProcess): Promise<Record<string, string>> {
  const res = await fetch(`${s.baseUrl}/api/auth/users?client_type=mobile`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `reader-${Date.now()}@example.com`, password: 'reader-password-1' }),
  });
  if (res.status !== 200) throw new Error(`sign-up: ${res.status} ${await res.text()}`);
  return { authorization: `Bearer ${((await res.json()) as { accessToken: string }).accessToken}` };
}

export interface Tally {
  outcomes: Outcome[];
  acknowledgedRows: Set<string>;
  acknowledgedObjects: Map<string, string>; // key → sha of the bytes
  hangs: number;
  networkErrors: number;
  /** Statuses seen, with how often. */
  statuses(): Record<string, number>;
}

export function newTally(): Tally {
  const tally: Tally = {
    outcomes: [],
    acknowledgedRows: new Set(),
    acknowledgedObjects: new Map(),
    hangs: 0,
    networkErrors: 0,
    statuses() {
      const counts: Record<string, number> = {};
      for (const o of tally.outcomes) counts[o.status] = (counts[o.status] ?? 0) + 1;
      return counts;
    },
  };
  return tally;
}

function record(tally: Tally, outcome: Outcome): Outcome {
  tally.outcomes.push(outcome);
  if (outcome.status === -1) tally.hangs++;
  if (outcome.status === 0) tally.networkErrors++;
  return outcome;
}

export interface Writers {
  tally: Tally;
  /** Stops issuing requests and waits for those in flight. */
  stop(): Promise<Tally>;
}

/** `clients` loops, each alternating inserts and (every `uploadEvery`th) uploads until stopped. */
export function startWriters(
  s: ServerProcess,
  options: { clients: number; uploadEvery?: number; tag?: string },
): Writers {
  const tally = newTally();
  const tag = options.tag ?? randomBytes(3).toString('hex');
  let running = true;
  const loop = async (client: number) => {
    for (let n = 0; running; n++) {
      const id = `${tag}-${client}-${n}`;
      if (options.uploadEvery && n % options.uploadEvery === 0) {
        const bytes = randomBytes(2048);
        const outcome = record(tally, await uploadObject(s, `${id}.bin`, bytes));
        if (outcome.status >= 200 && outcome.status < 300)
          tally.acknowledgedObjects.set(`${id}.bin`, bytes.toString('base64'));
      } else {
        const outcome = record(tally, await insertRow(s, id));
        if (outcome.status >= 200 && outcome.status < 300) tally.acknowledgedRows.add(id);
      }
      // A dead server answers instantly with a network error: do not spin on it.
      if (s.exit()) break;
    }
  };
  const loops = Array.from({ length: options.clients }, (_, i) => loop(i));
  return {
    tally,
    async stop() {
      running = false;
      await Promise.all(loops);
      return tally;
    },
  };
}

/** Acknowledged writes that are not there: rows by client id (API key), objects by content. */
export async function lostWrites(s: ServerProcess, tally: Tally): Promise<{ rows: string[]; objects: string[] }> {
  const present = new Set<string>();
  for (let offset = 0; ; offset += 1000) {
    const res = await fetch(
      `${s.baseUrl}/api/database/records/${TABLE}?select=client_id&order=id&limit=1000&offset=${offset}`,
      { headers: apiKeyHeaders(s) },
    );
    if (res.status !== 200) throw new Error(`reading rows back: ${res.status} ${await res.text()}`);
    const rows = (await res.json()) as { client_id: string }[];
    for (const row of rows) present.add(row.client_id);
    if (rows.length < 1000) break;
  }
  const rows = [...tally.acknowledgedRows].filter((id) => !present.has(id));
  const objects: string[] = [];
  for (const [key, content] of tally.acknowledgedObjects) {
    const res = await fetch(`${s.baseUrl}/api/storage/buckets/${BUCKET}/objects/${key}`, { headers: apiKeyHeaders(s) });
    const bytes = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200 || bytes.toString('base64') !== content) objects.push(key);
  }
  return { rows, objects };
}

/** Milliseconds from `since` until an insert and a readiness check both answer 2xx. */
export async function recoveryMs(s: ServerProcess, since: number, boundMs = RECOVERY_BOUND_MS): Promise<number> {
  const deadline = since + boundMs;
  let n = 0;
  while (Date.now() < deadline) {
    if (s.exit()) throw new Error(`the server exited (${JSON.stringify(s.exit())}) instead of recovering`);
    const insert = await insertRow(s, `recovery-${since}-${n++}`);
    const ready =
      insert.status >= 200 && insert.status < 300 ? await timed(`${s.baseUrl}/api/health/ready`) : undefined;
    if (ready?.status === 200) return Date.now() - since;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the server did not answer normally within ${boundMs} ms of the fault`);
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
