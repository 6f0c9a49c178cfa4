// The two session loads the profiler and the A/B runner drive: the current session with one access
// token, and refresh with a fresh refresh token per request (written to a file the load reads).
import path from 'node:path';
import { createRefreshTokens } from './fixtures.js';
import type { LoadSpec } from './load.js';

/** Client connections of either load. */
export const LOAD_CONNECTIONS = 32;

export function currentSessionLoad(url: string, accessToken: string, seconds: number): LoadSpec {
  return {
    url,
    method: 'GET',
    path: '/api/auth/sessions/current',
    headers: { authorization: `Bearer ${accessToken}` },
    connections: LOAD_CONNECTIONS,
    seconds,
  };
}

export interface RefreshTokenSource {
  databaseUrl: string;
  userIds: string[];
  ttlSeconds: number;
  /** Where the token files go (one per load). */
  dir: string;
  /** Tokens per second of load: more than the machine rotates, so none is used twice. */
  perSecond: number;
}

let files = 0;

export async function refreshLoad(url: string, tokens: RefreshTokenSource, seconds: number): Promise<LoadSpec> {
  const file = path.join(tokens.dir, `refresh-tokens-${process.pid}-${++files}.txt`);
  const count = Math.ceil(tokens.perSecond * seconds) + 2_000;
  await createRefreshTokens(tokens.databaseUrl, tokens.userIds, count, tokens.ttlSeconds, file);
  return {
    url,
    method: 'POST',
    path: '/api/auth/refresh?client_type=mobile',
    headers: { 'content-type': 'application/json' },
    refreshTokensFile: file,
    connections: LOAD_CONNECTIONS,
    seconds,
  };
}
