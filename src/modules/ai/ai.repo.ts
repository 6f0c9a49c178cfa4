// SQL of the AI gateway's guards: the settings row (system.ai_settings) and the daily usage
// counters (system.ai_usage), and the token spend reserved against the budgets (system.ai_spend).
import { type Queryable, type Sql, withTx } from '../../core/db.js';
import type { AiSettings, AiSettingsUpdate, CallerUsage, UsageRow } from './ai.schemas.js';

export type SubjectKind = UsageRow['subjectKind'];

interface SettingsRow {
  allowAnon: boolean;
  userDailyTokenBudget: string | null;
  projectDailyTokenBudget: string | null;
  allowedModels: string[];
  updatedAt: Date | null;
}

const toSettings = (row: SettingsRow): AiSettings => ({
  allowAnon: row.allowAnon,
  userDailyTokenBudget: row.userDailyTokenBudget === null ? null : Number(row.userDailyTokenBudget),
  projectDailyTokenBudget: row.projectDailyTokenBudget === null ? null : Number(row.projectDailyTokenBudget),
  allowedModels: row.allowedModels,
  updatedAt: row.updatedAt?.toISOString() ?? null,
});

/** The settings row. */
export async function readSettings(db: Queryable): Promise<AiSettings> {
  const [row] = await db<SettingsRow[]>`
    select allow_anon as "allowAnon", user_daily_token_budget as "userDailyTokenBudget",
      project_daily_token_budget as "projectDailyTokenBudget", allowed_models as "allowedModels",
      updated_at as "updatedAt"
    from system.ai_settings`;
  return toSettings(row!);
}

/** Changes the given settings; keys left out keep their value. */
export async function updateSettings(db: Queryable, update: AiSettingsUpdate, now: Date): Promise<AiSettings> {
  const has = (key: keyof AiSettingsUpdate) => update[key] !== undefined;
  await db`
    update system.ai_settings set
      allow_anon = case when ${has('allowAnon')} then ${update.allowAnon ?? false} else allow_anon end,
      user_daily_token_budget = case when ${has('userDailyTokenBudget')}
        then ${update.userDailyTokenBudget ?? null}::bigint else user_daily_token_budget end,
      project_daily_token_budget = case when ${has('projectDailyTokenBudget')}
        then ${update.projectDailyTokenBudget ?? null}::bigint else project_daily_token_budget end,
      allowed_models = case when ${has('allowedModels')}
        then ${update.allowedModels ?? []}::text[] else allowed_models end,
      updated_at = ${now}`;
  return readSettings(db);
}

export interface UsageIncrement {
  day: string;
  subject: string;
  subjectKind: SubjectKind;
  model: string;
  inputTokens: number;
  outputTokens: number;
}

/**
 * Counts one request and its tokens, in one statement whose commit does not wait for the disk
 * (synchronous_commit off for its own transaction): a crash may lose the last counters, never
 * corrupt them, and the answer is not held back by an fsync.
 */
export async function addUsage(db: Queryable, u: UsageIncrement): Promise<void> {
  await db`
    insert into system.ai_usage (day, subject, subject_kind, model, requests, input_tokens, output_tokens)
    select ${u.day}::date, ${u.subject}, ${u.subjectKind}, ${u.model}, 1, ${u.inputTokens}, ${u.outputTokens}
    from (select set_config('synchronous_commit', 'off', true)) as async_commit
    on conflict (day, subject, model) do update set
      requests = system.ai_usage.requests + 1,
      input_tokens = system.ai_usage.input_tokens + excluded.input_tokens,
      output_tokens = system.ai_usage.output_tokens + excluded.output_tokens`;
}

/** Usage rows between two days (inclusive), newest day first, optionally of one subject. */
export async function listUsage(db: Queryable, from: string, to: string, subject?: string): Promise<UsageRow[]> {
  const rows = await db<(Omit<UsageRow, 'requests' | 'inputTokens' | 'outputTokens'> & Record<string, string>)[]>`
    select to_char(day, 'YYYY-MM-DD') as day, subject, subject_kind as "subjectKind", model,
      requests, input_tokens as "inputTokens", output_tokens as "outputTokens"
    from system.ai_usage
    where day between ${from}::date and ${to}::date
      and (${subject ?? null}::text is null or subject = ${subject ?? null}::text)
    order by day desc, subject, model`;
  return rows.map((r) => ({
    day: r.day,
    subject: r.subject,
    subjectKind: r.subjectKind,
    model: r.model,
    requests: Number(r.requests),
    inputTokens: Number(r.inputTokens),
    outputTokens: Number(r.outputTokens),
  }));
}

/**
 * Usage between two days (inclusive) summed per caller in PostgreSQL, the most tokens first (then
 * the most requests, then the subject), at most `limit` callers; `callers` counts them all.
 */
export async function usageByCaller(
  db: Queryable,
  from: string,
  to: string,
  limit: number,
): Promise<{ callers: number; usage: CallerUsage[] }> {
  interface Row {
    subject: string;
    subjectKind: CallerUsage['subjectKind'];
    requests: string;
    inputTokens: string;
    outputTokens: string;
    models: string[];
    firstDay: string;
    lastDay: string;
    callers: string;
    email: string | null;
  }
  const rows = await db<Row[]>`
    select c.*, u.email
    from (
      select subject, min(subject_kind) as "subjectKind", sum(requests)::bigint as requests,
        sum(input_tokens)::bigint as "inputTokens", sum(output_tokens)::bigint as "outputTokens",
        array_agg(distinct model order by model) as models,
        to_char(min(day), 'YYYY-MM-DD') as "firstDay", to_char(max(day), 'YYYY-MM-DD') as "lastDay",
        count(*) over () as callers
      from system.ai_usage
      where day between ${from}::date and ${to}::date
      group by subject
      order by sum(input_tokens + output_tokens) desc, sum(requests) desc, subject
      limit ${limit}
    ) c
    left join auth.users u on c."subjectKind" = 'user' and u.id::text = c.subject
    order by c."inputTokens" + c."outputTokens" desc, c.requests desc, c.subject`;
  return {
    callers: Number(rows[0]?.callers ?? 0),
    usage: rows.map((r) => ({
      subject: r.subject,
      subjectKind: r.subjectKind,
      email: r.email,
      requests: Number(r.requests),
      inputTokens: Number(r.inputTokens),
      outputTokens: Number(r.outputTokens),
      models: r.models,
      firstDay: r.firstDay,
      lastDay: r.lastDay,
    })),
  };
}

/** One budget a reservation counts against: the caller's or the project's, null when unlimited. */
export interface SpendScope {
  scope: string;
  budget: number | null;
}

/**
 * Adds `tokens` to the day's spend of every scope in one transaction, or to none: answers the
 * first scope whose budget it would pass and that scope's spend, or undefined when reserved. The
 * conditional upsert locks the row, so concurrent reservations see each other's tokens and the
 * spend never passes a budget (scopes are taken in the caller's order: no deadlock).
 */
export async function reserveSpend(
  sql: Sql,
  day: string,
  scopes: SpendScope[],
  tokens: number,
): Promise<{ refusedBy: SpendScope; spent: number } | undefined> {
  try {
    await withTx(sql, async (tx) => {
      for (const s of scopes) {
        const [row] = await tx`
          insert into system.ai_spend (day, scope, tokens)
          select ${day}::date, ${s.scope}, ${tokens}
          where ${s.budget}::bigint is null or ${tokens} <= ${s.budget}::bigint
          on conflict (day, scope) do update set tokens = system.ai_spend.tokens + excluded.tokens
          where ${s.budget}::bigint is null or system.ai_spend.tokens + excluded.tokens <= ${s.budget}::bigint
          returning tokens`;
        if (!row) throw new SpendRefused(s);
      }
    });
    return undefined;
  } catch (err) {
    if (!(err instanceof SpendRefused)) throw err;
    const [row] = await sql<{ tokens: string }[]>`
      select tokens from system.ai_spend where day = ${day}::date and scope = ${err.scope.scope}`;
    return { refusedBy: err.scope, spent: Number(row?.tokens ?? 0) };
  }
}

class SpendRefused extends Error {
  constructor(readonly scope: SpendScope) {
    super('spend refused');
  }
}

/**
 * Gives back the part of a reservation the call did not use. One statement per scope, each its own
 * transaction: holding one row while waiting for another could deadlock with a reservation.
 */
export async function refundSpend(db: Queryable, day: string, scopes: string[], tokens: number): Promise<void> {
  if (tokens === 0) return; // negative: the call cost more than reserved, counted too
  for (const scope of scopes) {
    await db`
      update system.ai_spend set tokens = greatest(0, tokens - ${tokens})
      where day = ${day}::date and scope = ${scope}`;
  }
}
