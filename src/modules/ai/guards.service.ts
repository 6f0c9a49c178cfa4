// The checks before every AI call (users off until configured, anon switch, model allow-list) and
// its daily token budgets: the worst case reserved in PostgreSQL before the call, settled to the
// real cost after it, so every server enforces the same numbers and concurrent calls cannot overshoot.
import type { Clock } from '../../core/clock.js';
import type { Sql } from '../../core/db.js';
import { AppError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import { addUsage, readSettings, refundSpend, reserveSpend, type SpendScope, type SubjectKind } from './ai.repo.js';

export interface Caller {
  subject: string;
  kind: SubjectKind;
}

/** Whose usage a call is: the user, the one shared anon bucket, or the admin (API key or token). */
export function callerOf(principal: Principal): Caller {
  if (principal.kind === 'user') return { subject: principal.userId, kind: 'user' };
  if (principal.kind === 'anon') return { subject: 'anon', kind: 'anon' };
  return { subject: principal.subject, kind: 'admin' };
}

/** The UTC day of an instant, as YYYY-MM-DD. */
export const utcDay = (d: Date): string => d.toISOString().slice(0, 10);

/** Seconds until the next UTC midnight (at least 1). */
export function secondsToNextUtcDay(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}

/** Tokens a call may cost at worst: its estimated prompt and the most output it may produce. */
export interface TokenEstimate {
  inputTokens: number;
  outputTokens: number;
}

/** A call's reserved spend: its caller, model, UTC day, the scopes charged and the tokens reserved. */
export interface Reservation {
  caller: Caller;
  model: string;
  day: string;
  scopes: string[];
  worstCase: TokenEstimate;
}

const total = (t: TokenEstimate) => t.inputTokens + t.outputTokens;

function overBudget(what: string, spent: number, budget: number, asked: number, now: Date): AppError {
  const retryAfter = secondsToNextUtcDay(now);
  return new AppError(
    'TOO_MANY_REQUESTS',
    `The ${what} daily AI token budget (${budget}) cannot cover this call: ${spent} used or reserved, this call may use ${asked}.`,
    {
      headers: { 'retry-after': String(retryAfter) },
      nextActions: `Ask for fewer tokens (a smaller maxTokens or prompt), retry after ${retryAfter} seconds (the next UTC day), or ask the admin to raise the budget (PUT /api/ai/settings).`,
    },
  );
}

const notConfigured = (what: string) =>
  new AppError('FORBIDDEN', `AI is off for users until the admin sets ${what}.`, {
    nextActions:
      'Ask the admin to set allowedModels and userDailyTokenBudget (PUT /api/ai/settings {"allowedModels": [...], "userDailyTokenBudget": N}).',
  });

export function createGuards(sql: Sql, clock: Clock) {
  /** Settlements still running: checks and reports on this server wait for them. */
  const inFlight = new Set<Promise<void>>();
  const settled = async () => {
    await Promise.allSettled([...inFlight]);
  };
  const track = (write: Promise<void>): Promise<void> => {
    const tracked = write.finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
    return tracked;
  };

  return {
    settled,

    /** Throws the 403/400/429 that stops this call; else reserves its worst case and answers it. */
    async admit(caller: Caller, model: string, worstCase: TokenEstimate): Promise<Reservation> {
      await settled();
      const now = clock.now();
      const settings = await readSettings(sql);
      if (caller.kind === 'anon' && !settings.allowAnon) {
        throw new AppError('FORBIDDEN', 'AI is not available to anonymous callers.', {
          nextActions:
            'Sign in and call with the access token, or ask the admin to allow anon callers (PUT /api/ai/settings {"allowAnon": true}).',
        });
      }
      // Users (and anon) spend the project's money: nothing until the admin chose models and a budget.
      if (caller.kind !== 'admin' && settings.allowedModels.length === 0) throw notConfigured('a model allow-list');
      if (caller.kind !== 'admin' && settings.userDailyTokenBudget === null)
        throw notConfigured('a daily token budget');
      if (settings.allowedModels.length > 0 && !settings.allowedModels.includes(model)) {
        throw new AppError('VALIDATION_ERROR', `Model ${model} is not allowed on this project.`, {
          nextActions: `Use one of: ${settings.allowedModels.join(', ')} (or ask the admin to allow it).`,
          details: { allowedModels: settings.allowedModels },
        });
      }
      const scopes: SpendScope[] = [
        { scope: `subject:${caller.subject}`, budget: caller.kind === 'admin' ? null : settings.userDailyTokenBudget },
        { scope: 'project', budget: settings.projectDailyTokenBudget },
      ];
      const day = utcDay(now);
      const refused = await reserveSpend(sql, day, scopes, total(worstCase));
      if (refused) {
        const what = refused.refusedBy.scope === 'project' ? "project's" : "caller's";
        throw overBudget(what, refused.spent, refused.refusedBy.budget ?? 0, total(worstCase), now);
      }
      return { caller, model, day, scopes: scopes.map((s) => s.scope), worstCase };
    },

    /**
     * Settles a call: its spend becomes `cost` (the worst case reserved when the provider reported
     * nothing, e.g. a stream the caller cut), and its usage row counts it.
     */
    settle(r: Reservation, cost: TokenEstimate = r.worstCase): Promise<void> {
      return track(
        (async () => {
          await refundSpend(sql, r.day, r.scopes, total(r.worstCase) - total(cost));
          await addUsage(sql, {
            day: r.day,
            subject: r.caller.subject,
            subjectKind: r.caller.kind,
            model: r.model,
            ...cost,
          });
        })(),
      );
    },

    /** Gives a reservation back whole: the provider refused the call, so it cost nothing. */
    cancel(r: Reservation): Promise<void> {
      return track(refundSpend(sql, r.day, r.scopes, total(r.worstCase)));
    },
  };
}

export type Guards = ReturnType<typeof createGuards>;
