// SQL of the AI gateway's guards: the settings row (system.ai_settings) and the daily usage
// counters (system.ai_usage).
import type { Queryable } from '../../core/db.js';
import type { AiSettings, AiSettingsUpdate, UsageRow } from './ai.schemas.js';

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

/** The settings alone: the guard statement on a day without usage. */
export async function readSettings(db: Queryable): Promise<AiSettings> {
  return (await readGuardState(db, '', '1970-01-01')).settings;
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

export interface GuardState {
  settings: AiSettings;
  /** Tokens (in + out) used today by the subject, and by the whole project. */
  subjectTokens: number;
  projectTokens: number;
}

/** The settings and today's token totals, in one statement. */
export async function readGuardState(db: Queryable, subject: string, day: string): Promise<GuardState> {
  const [row] = await db<(SettingsRow & { subjectTokens: string; projectTokens: string })[]>`
    select s.allow_anon as "allowAnon", s.user_daily_token_budget as "userDailyTokenBudget",
      s.project_daily_token_budget as "projectDailyTokenBudget", s.allowed_models as "allowedModels",
      s.updated_at as "updatedAt",
      coalesce(sum(u.input_tokens + u.output_tokens) filter (where u.subject = ${subject}), 0) as "subjectTokens",
      coalesce(sum(u.input_tokens + u.output_tokens), 0) as "projectTokens"
    from system.ai_settings s
    left join system.ai_usage u on u.day = ${day}::date
    group by s.id`;
  return {
    settings: toSettings(row!),
    subjectTokens: Number(row!.subjectTokens),
    projectTokens: Number(row!.projectTokens),
  };
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
