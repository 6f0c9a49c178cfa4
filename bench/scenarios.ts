// The three scenarios, each measured on Plinth and on its limit: current-session (a bearer-token
// read), refresh (token rotation, a write), and sign-in (argon2-bound).
import path from 'node:path';
import { measureArgon2Rate } from './argon2-rate.js';
import { createRefreshTokens, type BenchUser } from './fixtures.js';
import { LIMIT_JWT_CHECK } from './limit.js';
import { cpuShare, measureLoad, withCpu, type Measurement, type MeasureSettings, type SpecFor } from './measure.js';

export interface BenchContext extends MeasureSettings {
  plinthUrl: string;
  limitUrl: string;
  databaseUrl: string;
  /** Scratch directory for token files. */
  dir: string;
  user: BenchUser;
  /** Users the refresh scenario's sessions are spread over. */
  userIds: string[];
  /** The user's stored argon2 hash. */
  storedHash: string;
  refreshTtlSeconds: number;
}

export type Target = { kind: 'ratio'; min: number } | { kind: 'rps'; min: number };

export interface ScenarioOutcome {
  name: string;
  request: string;
  connections: number;
  plinth: Measurement;
  limit: Measurement;
  limitDoes: string;
  target: Target;
}

export interface Scenario {
  name: string;
  run(ctx: BenchContext): Promise<ScenarioOutcome>;
}

const CURRENT_CONNECTIONS = 32;

const currentSession: Scenario = {
  name: 'current-session',
  async run(ctx) {
    const spec = (url: string): SpecFor => async (seconds) => ({
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
      plinth: await measureLoad(spec(ctx.plinthUrl), ctx),
      limit: await measureLoad(spec(ctx.limitUrl), ctx),
      limitDoes: `bare Fastify route: ${LIMIT_JWT_CHECK}; the findSessionUser query (users.repo.ts); JSON.stringify reply`,
      target: { kind: 'ratio', min: 0.85 },
    };
  },
};

const REFRESH_CONNECTIONS = 32;
/** Refresh tokens for a warm-up, per second of it: more than any machine of this kind refreshes. */
const WARMUP_TOKENS_PER_SECOND = 15_000;

const refresh: Scenario = {
  name: 'refresh',
  async run(ctx) {
    let files = 0;
    // Sessions are made per run: the warm-up gets a generous fixed pool, the measured run twice
    // the warm-up's rate (plus slack), so a run never wraps around to a spent token.
    const spec = (url: string): SpecFor => async (seconds, phase, warmup) => {
      const perSecond = phase === 'warmup' ? WARMUP_TOKENS_PER_SECOND : Math.max(2 * (warmup?.rps ?? 0), 3_000);
      const file = path.join(ctx.dir, `refresh-tokens-${++files}.txt`);
      await createRefreshTokens(ctx.databaseUrl, ctx.userIds, Math.ceil(perSecond * seconds) + 2_000, ctx.refreshTtlSeconds, file);
      return {
        url,
        method: 'POST',
        path: '/api/auth/refresh?client_type=mobile',
        headers: { 'content-type': 'application/json' },
        refreshTokensFile: file,
        connections: REFRESH_CONNECTIONS,
        seconds,
      };
    };
    return {
      name: this.name,
      request: 'POST /api/auth/refresh?client_type=mobile {refreshToken} (a fresh token each request)',
      connections: REFRESH_CONNECTIONS,
      plinth: await measureLoad(spec(ctx.plinthUrl), ctx),
      limit: await measureLoad(spec(ctx.limitUrl), ctx),
      limitDoes:
        'bare Fastify route: SHA-256 + HMAC successor, the rotateRefreshToken statement (auth.rotate_refresh_token, sessions.repo.ts), async RS256 sign (node:crypto), JSON.stringify reply',
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

export const SCENARIOS: Scenario[] = [currentSession, refresh, signIn];
