// Idempotency-Key: a retry of a records insert or a function call with the same key (per caller,
// per route, for a day) answers the first outcome instead of writing again. A records insert
// stores its outcome in its own transaction (its commit implies the key's); a function call, which
// runs outside any transaction, claims the key first and stores the answer after.
import { createHash } from 'node:crypto';
import { type Queryable, withRequestScope, type RequestScope, type Sql } from '../../core/db.js';
import { AppError } from '../../core/errors.js';
import type { Deps } from '../../deps.js';
import type { Principal } from '../../core/principal.js';
import {
  claimKey,
  deleteExpiredKeys,
  findKey,
  releaseClaim,
  saveKey,
  tryLockKey,
  type KeyId,
  type KeyRow,
  type StoredOutcome,
} from './idempotency.repo.js';

export type { StoredOutcome } from './idempotency.repo.js';

/** How long a key's first outcome is kept and answered again. */
export const KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** Visible ASCII, as the IETF Idempotency-Key draft's examples (UUIDs, random tokens). */
const KEY_FORMAT = /^[\x21-\x7e]{1,255}$/;

/** One keyed request: whose, on which route, with which key, and what it asked (its fingerprint). */
export interface KeyedRequest {
  id: KeyId;
  fingerprint: string;
}

/** The header's key, or undefined without one; a malformed one is the caller's mistake (400). */
export function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const key = Array.isArray(header) ? undefined : header.trim().replace(/^"(.*)"$/, '$1');
  if (key === undefined || !KEY_FORMAT.test(key)) {
    throw new AppError('VALIDATION_ERROR', 'The Idempotency-Key header must be 1 to 255 visible ASCII characters.', {
      nextActions: 'Send one Idempotency-Key per request, e.g. a random UUID.',
    });
  }
  return key;
}

/** The caller a key belongs to: keys of different callers never meet. */
function ownerOf(principal: Principal): string {
  switch (principal.kind) {
    case 'anon':
      return 'anon';
    case 'user':
      return `user:${principal.userId}`;
    default:
      return principal.via === 'apiKey' ? 'api-key' : `admin:${principal.subject}`;
  }
}

/** The request a key stands for: `route` names the endpoint, `parts` whatever changes its outcome. */
export function keyedRequest(principal: Principal, route: string, key: string, parts: unknown[]): KeyedRequest {
  const fingerprint = createHash('sha256').update(JSON.stringify(parts)).digest('base64url');
  return { id: { principal: ownerOf(principal), route, key }, fingerprint };
}

const inFlight = () =>
  new AppError('IDEMPOTENCY_KEY_IN_FLIGHT', undefined, {
    headers: { 'retry-after': '1' },
    nextActions:
      'Retry after the number of seconds in the Retry-After header: the first request’s outcome will be answered then.',
  });

/** The stored outcome of a finished first request with the same fingerprint; else a 409/422. */
function replayOf(row: KeyRow | undefined, request: KeyedRequest): StoredOutcome {
  if (row && row.fingerprint !== request.fingerprint) {
    throw new AppError('IDEMPOTENCY_KEY_REUSED', undefined, {
      nextActions: 'Use a new Idempotency-Key for a different request; a key stands for one request.',
    });
  }
  if (!row?.outcome) throw inFlight();
  return { ...row.outcome, headers: { ...row.outcome.headers, 'idempotent-replayed': 'true' } };
}

/** Leaves the caller's role for the platform's (the keys table is not the caller's to touch). */
const asPlatform = (tx: Sql) => tx`select set_config('role', 'none', true)`;
const asCaller = (tx: Sql, scope: RequestScope) => tx`select set_config('role', ${scope.role}, true)`;

/** Expired keys one stored outcome deletes on its way (bounded work per keyed request). */
const SWEEP_PER_STORE = 100;

export function createIdempotency(deps: Pick<Deps, 'sql' | 'clock'>) {
  const expiry = (now: Date) => new Date(now.getTime() + KEY_LIFETIME_MS);
  /** Stores the key's first outcome, and sweeps some keys that expired. */
  const store = async (db: Queryable, request: KeyedRequest, outcome: StoredOutcome | null, now: Date) => {
    await saveKey(db, request.id, { fingerprint: request.fingerprint, outcome, now, expiresAt: expiry(now) });
    await deleteExpiredKeys(db, now, SWEEP_PER_STORE);
  };
  return {
    /**
     * Runs `perform` (as the caller's role) once per key, in one transaction with the key's lock,
     * lookup and stored outcome: a retry after a commit answers that outcome, a retry while the
     * first is still running answers 409, a retry after a rollback performs it again.
     */
    async inTransaction(
      scope: RequestScope,
      request: KeyedRequest,
      perform: (tx: Sql) => Promise<StoredOutcome>,
    ): Promise<StoredOutcome> {
      return withRequestScope(
        deps.sql,
        scope,
        async (tx) => {
          await asPlatform(tx);
          if (!(await tryLockKey(tx, request.id))) throw inFlight();
          const now = deps.clock.now();
          const prior = await findKey(tx, request.id, now);
          if (prior) return replayOf(prior, request);
          await asCaller(tx, scope);
          const outcome = await perform(tx);
          await asPlatform(tx);
          await store(tx, request, outcome, now);
          return outcome;
        },
        'writes',
      );
    },

    /**
     * Claims the key for a call outside any transaction: undefined when the caller may run it,
     * else the first outcome to answer (409 while that call runs, unless its claim is older than
     * `staleAfterMs`: a server that died mid-call).
     */
    async claim(request: KeyedRequest, staleAfterMs: number): Promise<StoredOutcome | undefined> {
      const now = deps.clock.now();
      const result = await claimKey(deps.sql, request.id, {
        fingerprint: request.fingerprint,
        now,
        expiresAt: expiry(now),
        staleBefore: new Date(now.getTime() - staleAfterMs),
      });
      return result.claimed ? undefined : replayOf(result.row, request);
    },

    /** Stores a claimed call's answer. */
    async complete(request: KeyedRequest, outcome: StoredOutcome): Promise<void> {
      const now = deps.clock.now();
      await store(deps.sql, request, outcome, now);
    },

    /** Gives a claimed key up (the call failed before answering, or its answer is not kept): a retry runs again. */
    async release(request: KeyedRequest): Promise<void> {
      await releaseClaim(deps.sql, request.id, request.fingerprint);
    },
  };
}

export type Idempotency = ReturnType<typeof createIdempotency>;
