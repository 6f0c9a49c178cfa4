// The checks before every AI call (anon switch, model allow-list, daily token budgets) and the
// usage counting after it, all against PostgreSQL so every server enforces the same numbers.
import type { Clock } from '../../core/clock.js';
import type { Sql } from '../../core/db.js';
import { AppError } from '../../core/errors.js';
import type { Principal } from '../../http/principal.js';
import { addUsage, readGuardState, type SubjectKind } from './ai.repo.js';

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

function overBudget(what: string, used: number, budget: number, now: Date): AppError {
  const retryAfter = secondsToNextUtcDay(now);
  return new AppError('TOO_MANY_REQUESTS', `The ${what} daily AI token budget (${budget}) is used up (${used}).`, {
    headers: { 'retry-after': String(retryAfter) },
    nextActions: `Retry after ${retryAfter} seconds (the next UTC day), or ask the admin to raise the budget (PUT /api/ai/settings).`,
  });
}

export function createGuards(sql: Sql, clock: Clock) {
  /** Usage writes still running: checks and reports on this server wait for them. */
  const inFlight = new Set<Promise<void>>();
  const settled = async () => {
    await Promise.allSettled([...inFlight]);
  };
  return {
    settled,

    /** Throws the 403/400/429 that stops this call, if any. */
    async admit(caller: Caller, model: string): Promise<void> {
      await settled();
      const now = clock.now();
      const { settings, subjectTokens, projectTokens } = await readGuardState(sql, caller.subject, utcDay(now));
      if (caller.kind === 'anon' && !settings.allowAnon) {
        throw new AppError('FORBIDDEN', 'AI is not available to anonymous callers.', {
          nextActions:
            'Sign in and call with the access token, or ask the admin to allow anon callers (PUT /api/ai/settings {"allowAnon": true}).',
        });
      }
      if (settings.allowedModels.length > 0 && !settings.allowedModels.includes(model)) {
        throw new AppError('VALIDATION_ERROR', `Model ${model} is not allowed on this project.`, {
          nextActions: `Use one of: ${settings.allowedModels.join(', ')} (or ask the admin to allow it).`,
          details: { allowedModels: settings.allowedModels },
        });
      }
      const budget = settings.userDailyTokenBudget;
      if (caller.kind !== 'admin' && budget !== null && subjectTokens >= budget) {
        throw overBudget("caller's", subjectTokens, budget, now);
      }
      const projectBudget = settings.projectDailyTokenBudget;
      if (projectBudget !== null && projectTokens >= projectBudget) {
        throw overBudget("project's", projectTokens, projectBudget, now);
      }
    },

    /** Counts one answered call and its tokens on today's row. */
    record(caller: Caller, model: string, tokens: { inputTokens: number; outputTokens: number }): Promise<void> {
      const write = addUsage(sql, {
        day: utcDay(clock.now()),
        subject: caller.subject,
        subjectKind: caller.kind,
        model,
        ...tokens,
      }).finally(() => inFlight.delete(write));
      inFlight.add(write);
      return write;
    },
  };
}

export type Guards = ReturnType<typeof createGuards>;
