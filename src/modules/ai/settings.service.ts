// The admin's side of the AI gateway: its settings (anon switch, budgets, model allow-list) and
// the usage report by caller and UTC day, and its sum per caller.
import type { Clock } from '../../core/clock.js';
import type { Sql } from '../../core/db.js';
import { AppError } from '../../core/errors.js';
import { listUsage, readSettings, updateSettings, usageByCaller } from './ai.repo.js';
import type { AiSettingsUpdate, UsageByCallerQuery, UsageQuery } from './ai.schemas.js';
import { type Guards, utcDay } from './guards.service.js';

const REPORT_DAYS = 30;

export function createSettingsService(sql: Sql, clock: Clock, guards: Guards) {
  /** `from` and `to` of a report (default: the last 30 UTC days, today included), once settled. */
  async function reportRange(query: { from?: string; to?: string }): Promise<{ from: string; to: string }> {
    const now = clock.now();
    const to = query.to ?? utcDay(now);
    const from = query.from ?? utcDay(new Date(Date.parse(`${to}T00:00:00Z`) - (REPORT_DAYS - 1) * 86_400_000));
    if (from > to) {
      throw new AppError('VALIDATION_ERROR', 'from must not be after to.', {
        nextActions: 'Pass from and to as YYYY-MM-DD with from <= to.',
      });
    }
    await guards.settled(); // calls answered just now are in the report
    return { from, to };
  }

  return {
    read: () => readSettings(sql),
    update: (update: AiSettingsUpdate) =>
      updateSettings(
        sql,
        { ...update, allowedModels: update.allowedModels && [...new Set(update.allowedModels)] },
        clock.now(),
      ),

    /** Usage rows from `from` to `to` (default: the last 30 UTC days, today included). */
    async usage(query: UsageQuery) {
      const { from, to } = await reportRange(query);
      return { from, to, usage: await listUsage(sql, from, to, query.subject) };
    },

    /** The same range summed per caller (user, anon, admin), the heaviest first. */
    async usageByCaller(query: UsageByCallerQuery) {
      const { from, to } = await reportRange(query);
      return { from, to, ...(await usageByCaller(sql, from, to, query.limit)) };
    },
  };
}

export type SettingsService = ReturnType<typeof createSettingsService>;
