// The scenarios, each measured on Plinth and on its limit: current-session (a bearer-token
// read), refresh (token rotation, a write), sign-in (argon2-bound), and the records API under
// row-level security: read one row by id, list 20 rows, insert one row.
import { measureArgon2Rate } from './argon2-rate.js';
import { functionsInvoke, functionsLatency } from './functions.js';
import { paymentsSubscriptions } from './payments.js';
import type { BenchContext, Scenario } from './scenario.js';
import { LIMIT_JWT_CHECK } from '../lib/limit.js';
import { ENVELOPE_TEXT, LIMIT_ENVELOPE } from '../lib/limit-records.js';
import { USER_VIEW_DOES, USER_VIEW_PREFIX } from '../lib/limit-user-view.js';
import type { LoadSpec } from '../lib/load.js';
import { cpuShare, measureLoad, withCpu, type Measurement, type SpecFor } from '../lib/measure.js';
import { INSERT_BODY, LIST_QUERY, RECORDS_PATH, RECORDS_TABLE } from '../lib/records.js';
import { LOAD_CONNECTIONS, refreshLoad } from '../lib/session-loads.js';

const CURRENT_CONNECTIONS = 32;

const currentSession: Scenario = {
  name: 'current-session',
  async run(ctx) {
    const spec =
      (url: string): SpecFor =>
      async (seconds) => ({
        url,
        method: 'GET',
        path: '/api/auth/sessions/current',
        headers: { authorization: `Bearer ${ctx.user.accessToken}` },
        connections: CURRENT_CONNECTIONS,
        seconds,
      });
    return {
      name: this.name,
      request: 'GET /api/auth/sessions/current (Bearer access token)',
      connections: CURRENT_CONNECTIONS,
      ...(await withUserViewOfLimit(
        await measureLoad(spec(ctx.plinthUrl), ctx),
        await measureLoad(spec(ctx.limitUrl), ctx),
      )),
      limitDoes: `bare Fastify route: ${LIMIT_JWT_CHECK}; the findSessionUser query (users.repo.ts); JSON.stringify reply`,
      target: { kind: 'ratio', min: 0.85 },
    };
  },
};

/**
 * Plinth's session statements (users.repo.ts, sessions.repo.ts) are hand-written, one per
 * request: the limit running them is already what a careful engineer writes, so it is the user view too.
 */
const withUserViewOfLimit = async (plinth: Measurement, limit: Measurement) => ({
  plinth,
  limit,
  userView: {
    measurement: limit,
    does: "the limit itself: Plinth's one hand-written statement is already the plainest SQL for this answer",
  },
});

/** Refresh tokens for a warm-up, per second of it: more than any machine of this kind refreshes. */
const WARMUP_TOKENS_PER_SECOND = 15_000;

const refresh: Scenario = {
  name: 'refresh',
  async run(ctx) {
    // Sessions are made per run: the warm-up gets a generous fixed pool, the measured run twice
    // the warm-up's rate (plus slack), so a run never wraps around to a spent token.
    const spec =
      (url: string): SpecFor =>
      (seconds, phase, warmup) =>
        refreshLoad(
          url,
          {
            databaseUrl: ctx.databaseUrl,
            userIds: ctx.userIds,
            ttlSeconds: ctx.refreshTtlSeconds,
            dir: ctx.dir,
            perSecond: phase === 'warmup' ? WARMUP_TOKENS_PER_SECOND : Math.max(2 * (warmup?.rps ?? 0), 3_000),
          },
          seconds,
        );
    return {
      name: this.name,
      request: 'POST /api/auth/refresh?client_type=mobile {refreshToken} (a fresh token each request)',
      connections: LOAD_CONNECTIONS,
      ...(await withUserViewOfLimit(
        await measureLoad(spec(ctx.plinthUrl), ctx),
        await measureLoad(spec(ctx.limitUrl), ctx),
      )),
      limitDoes:
        "bare Fastify route: SHA-256 + HMAC successor, the rotateRefreshToken statement (auth.rotate_refresh_token, sessions.repo.ts), sign with a key of Plinth's key's kind (its JWKS gives the public half) where Plinth signs (node:crypto: ES256 on the event loop, RS256 on the thread pool), JSON.stringify reply",
      target: { kind: 'rps', min: 4_000 },
    };
  },
};

const SIGN_IN_CONNECTIONS = 8;

const signIn: Scenario = {
  name: 'sign-in',
  async run(ctx) {
    const spec: SpecFor = async (seconds) => ({
      url: ctx.plinthUrl,
      method: 'POST',
      path: '/api/auth/sessions?client_type=mobile',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: ctx.user.email, password: ctx.user.password }),
      connections: SIGN_IN_CONNECTIONS,
      seconds,
    });
    const plinth = await measureLoad(spec, ctx);
    const { value: rate, used } = await withCpu(ctx.pgDataDir, () =>
      measureArgon2Rate(ctx.storedHash, ctx.user.password, Math.min(ctx.seconds, 5)),
    );
    return {
      name: this.name,
      request: 'POST /api/auth/sessions?client_type=mobile {email, password}',
      connections: SIGN_IN_CONNECTIONS,
      plinth,
      limit: {
        rps: rate.verifiesPerSecond,
        p50: rate.p50,
        p99: rate.p99,
        failures: 0,
        failureDetail: '',
        cpu: cpuShare(used, rate.verifies, rate.seconds, NaN),
      },
      limitDoes: `raw argon2 verify of the user's stored hash (@node-rs/argon2), ${rate.concurrency} at a time (all cores), no HTTP; latency is one verification`,
      target: { kind: 'ratio', min: 0.9 },
    };
  },
};

// Records: the user's access token, row-level security on, 32 connections as current-session.
const RECORDS_CONNECTIONS = 32;

/** One request's answer, for the checks before a records scenario is measured. */
interface Answer {
  status: number;
  contentRange: string | null;
  body: string;
}

async function answerOf(
  base: string,
  token: string,
  method: 'GET' | 'POST',
  path: string,
  body?: string,
): Promise<Answer> {
  const res = await fetch(base + path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body,
  });
  return { status: res.status, contentRange: res.headers.get('content-range'), body: await res.text() };
}

/**
 * Plinth answers `path` and the limit `prefix + path` alike (status, Content-Range, body), as
 * `check` expects.
 */
async function sameAnswers(
  ctx: BenchContext,
  path: string,
  prefix: string,
  status: number,
  check: (body: unknown) => string | undefined,
): Promise<void> {
  const [plinth, limit] = await Promise.all([
    answerOf(ctx.plinthUrl, ctx.user.accessToken, 'GET', path),
    answerOf(ctx.limitUrl, ctx.user.accessToken, 'GET', prefix + path),
  ]);
  const problem =
    plinth.status !== status
      ? `Plinth answered ${plinth.status} (${plinth.body.slice(0, 300)}), expected ${status}`
      : limit.status !== status
        ? `the limit answered ${limit.status} (${limit.body.slice(0, 300)}), expected ${status}`
        : plinth.body !== limit.body || plinth.contentRange !== limit.contentRange
          ? `Plinth and the limit answer differently:\n  Plinth ${plinth.contentRange} ${plinth.body.slice(0, 300)}\n  limit  ${limit.contentRange} ${limit.body.slice(0, 300)}`
          : check(JSON.parse(plinth.body));
  if (problem) throw new Error(`GET ${prefix}${path}: ${problem}`);
}

const randomId = (ids: number[]) => ids[Math.floor(Math.random() * ids.length)]!;
const readPath = (id: number) => `${RECORDS_PATH}?id=eq.${id}`;
const LIST_PATH = `${RECORDS_PATH}?${LIST_QUERY}`;

export const RECORDS_SCENARIOS = ['records-read-one', 'records-list-20', 'records-insert-one'] as const;
export type RecordsScenario = (typeof RECORDS_SCENARIOS)[number];

/**
 * The load of a records scenario against `url`, its paths under `prefix` (the limit's envelope
 * variants live under one). Every answer must have the one correct status.
 */
export function recordsSpec(ctx: BenchContext, scenario: RecordsScenario, url: string, prefix = ''): SpecFor {
  const authorization = `Bearer ${ctx.user.accessToken}`;
  // Every read asks for a random row of the user's: one path per row, picked per request.
  const readPaths = scenario === 'records-read-one' ? ctx.recordIds.map((id) => prefix + readPath(id)) : [];
  return async (seconds): Promise<LoadSpec> => {
    const common = { url, connections: RECORDS_CONNECTIONS, seconds };
    switch (scenario) {
      case 'records-read-one':
        return {
          ...common,
          method: 'GET',
          path: readPaths[0]!,
          paths: readPaths,
          headers: { authorization },
          expectStatus: 200,
        };
      case 'records-list-20':
        return { ...common, method: 'GET', path: prefix + LIST_PATH, headers: { authorization }, expectStatus: 200 };
      case 'records-insert-one':
        return {
          ...common,
          method: 'POST',
          path: prefix + RECORDS_PATH,
          headers: { authorization, 'content-type': 'application/json' },
          body: INSERT_BODY,
          idReplacement: true,
          expectStatus: 201,
        };
    }
  };
}

/**
 * Before a records scenario is measured: Plinth and the limit (its route under `prefix`) give
 * the same, right answers. Reads: the same body for random rows (exactly that row) and for the
 * list (20 rows not done). Insert: 201 with an uncounted Content-Range and no body; the row is
 * then there, the user's, read back through Plinth.
 */
export async function checkRecords(ctx: BenchContext, scenario: RecordsScenario, prefix = ''): Promise<void> {
  switch (scenario) {
    case 'records-read-one':
      for (let i = 0; i < 5; i++) {
        const id = randomId(ctx.recordIds);
        await sameAnswers(ctx, readPath(id), prefix, 200, (rows) =>
          Array.isArray(rows) && rows.length === 1 && (rows[0] as { id?: unknown }).id === id
            ? undefined
            : `expected exactly row ${id}`,
        );
      }
      return;
    case 'records-list-20':
      return sameAnswers(ctx, LIST_PATH, prefix, 200, (rows) =>
        Array.isArray(rows) && rows.length === 20 && rows.every((r: { done?: unknown }) => r.done === false)
          ? undefined
          : 'expected 20 rows not done',
      );
    case 'records-insert-one':
      for (const [side, url] of [
        ['Plinth', ctx.plinthUrl],
        ['the limit', ctx.limitUrl + prefix],
      ] as const) {
        const title = `bench check ${side} ${prefix} ${Date.now()}`;
        const inserted = await answerOf(
          url,
          ctx.user.accessToken,
          'POST',
          RECORDS_PATH,
          JSON.stringify({ title, done: false }),
        );
        if (inserted.status !== 201 || inserted.contentRange !== '*/*' || inserted.body !== '') {
          throw new Error(
            `POST ${prefix}${RECORDS_PATH}: ${side} answered ${inserted.status} ${inserted.contentRange} ${inserted.body.slice(0, 300)}, expected 201 */* with no body`,
          );
        }
        const back = await answerOf(
          ctx.plinthUrl,
          ctx.user.accessToken,
          'GET',
          `${RECORDS_PATH}?select=owner,done&title=eq.${encodeURIComponent(title)}`,
        );
        if (back.status !== 200 || back.body !== JSON.stringify([{ owner: ctx.user.id, done: false }])) {
          throw new Error(
            `the row ${side} inserted (${prefix}${RECORDS_PATH}) is not there as the user's: ${back.status} ${back.body.slice(0, 300)}`,
          );
        }
      }
  }
}

const limitDoes = (work: string) =>
  `bare Fastify route: ${LIMIT_JWT_CHECK}; ${work} (the statement Plinth's records service sends, captured from it with its parameters) with Plinth's scope statement (role authenticated, the same claims) in the fastest safe envelope: ${ENVELOPE_TEXT[LIMIT_ENVELOPE]}; PostgreSQL's JSON text as the reply`;

/** Plinth, the statement limit and the user-view limit (checked to answer alike first) on a records scenario. */
async function measureRecordsSides(ctx: BenchContext, scenario: RecordsScenario) {
  await checkRecords(ctx, scenario, USER_VIEW_PREFIX);
  return {
    plinth: await measureLoad(recordsSpec(ctx, scenario, ctx.plinthUrl), ctx),
    limit: await measureLoad(recordsSpec(ctx, scenario, ctx.limitUrl), ctx),
    userView: {
      measurement: await measureLoad(recordsSpec(ctx, scenario, ctx.limitUrl, USER_VIEW_PREFIX), ctx),
      does: USER_VIEW_DOES,
    },
  };
}

const recordsReadOne: Scenario = {
  name: 'records-read-one',
  async run(ctx) {
    await checkRecords(ctx, 'records-read-one');
    return {
      name: this.name,
      request: `GET ${RECORDS_PATH}?id=eq.<random id of ${ctx.recordIds.length.toLocaleString('en-US')}> (user token; RLS owner = auth.uid()); every answer must be 200`,
      connections: RECORDS_CONNECTIONS,
      ...(await measureRecordsSides(ctx, this.name as RecordsScenario)),
      limitDoes: limitDoes('the read by primary key'),
      target: { kind: 'ratio', min: 0.85 },
    };
  },
};

const recordsList: Scenario = {
  name: 'records-list-20',
  async run(ctx) {
    await checkRecords(ctx, 'records-list-20');
    return {
      name: this.name,
      request: `GET ${LIST_PATH} (user token; RLS owner = auth.uid()); every answer must be 200`,
      connections: RECORDS_CONNECTIONS,
      ...(await measureRecordsSides(ctx, this.name as RecordsScenario)),
      limitDoes: limitDoes('the filtered, ordered, limited list'),
      target: { kind: 'ratio', min: 0.85 },
    };
  },
};

const recordsInsertOne: Scenario = {
  name: 'records-insert-one',
  async run(ctx) {
    await checkRecords(ctx, 'records-insert-one');
    return {
      name: this.name,
      request: `POST ${RECORDS_PATH} ${INSERT_BODY} ([<id>] random per request; user token; Prefer return=minimal by default; RLS with check owner = auth.uid()); every answer must be 201`,
      connections: RECORDS_CONNECTIONS,
      ...(await measureRecordsSides(ctx, this.name as RecordsScenario)),
      limitDoes: limitDoes(
        `the insert into ${RECORDS_TABLE} from json_populate_recordset (the body wrapped in an array, bound as JSON text, as Plinth binds it)`,
      ),
      target: { kind: 'ratio', min: 0.85 },
    };
  },
};

/**
 * Supabase's /rest/v1 read of one row, as supabase-js sends it (apikey + Bearer), against the same
 * read on Plinth's own /api/database/records: the adapter's cost (issue 35: within 5%). Both sides
 * are this Plinth; the records route is the "limit".
 */
const supabaseRestReadOne: Scenario = {
  name: 'supabase-rest-read-one',
  async run(ctx) {
    const records = recordsSpec(ctx, 'records-read-one', ctx.plinthUrl);
    const restPaths = ctx.recordIds.map((id) => `/rest/v1/${RECORDS_TABLE}?select=*&id=eq.${id}`);
    const rest: SpecFor = async (seconds, phase, warmup) => ({
      ...(await records(seconds, phase, warmup)),
      path: restPaths[0]!,
      paths: restPaths,
      headers: { apikey: ctx.anonKey, authorization: `Bearer ${ctx.user.accessToken}` },
    });
    return {
      name: this.name,
      request: `GET /rest/v1/${RECORDS_TABLE}?select=*&id=eq.<random id> (apikey + user Bearer, as supabase-js) against GET ${RECORDS_PATH}?id=eq.<random id>; every answer must be 200`,
      connections: RECORDS_CONNECTIONS,
      plinth: await measureLoad(rest, ctx),
      limit: await measureLoad(records, ctx),
      limitDoes: `Plinth itself: the same read through ${RECORDS_PATH} (Plinth's own records route)`,
      target: { kind: 'ratio', min: 0.95 },
    };
  },
};

export const SCENARIOS: Scenario[] = [
  currentSession,
  refresh,
  signIn,
  recordsReadOne,
  recordsList,
  recordsInsertOne,
  functionsInvoke,
  functionsLatency,
  paymentsSubscriptions,
  supabaseRestReadOne,
];
