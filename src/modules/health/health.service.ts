// What liveness and readiness answer: whether this process is wedged (restart it), and whether it
// can serve (the database answers within a bound and every system migration is applied); the
// function runtime is reported, never failing readiness (docs/self-hosting.md, "Health checks").
import { guardOf } from '../../core/db.js';
import { appliedMigrationNames, pendingMigrations } from '../../core/migrator.js';
import type { Deps } from '../../deps.js';
import { startLivenessMonitor } from './liveness.js';

export const VERSION = '0.1.0';
/**
 * The reference platform's API version Plinth answers like, reported as `version` by /api/health:
 * its official MCP server hides tools below 1.5.1 (reference §8.1). Plinth's own is `plinthVersion`.
 */
export const COMPATIBILITY_VERSION = '2.3.1';

/** How long readiness waits for the database before it calls it unreachable. */
const READY_DATABASE_BOUND_MS = 2_000;

/** One readiness check: whether it passes and the fields it adds to the answer. Add one to `checks`. */
type ReadinessCheck = () => Promise<{ ok: boolean; fields: Record<string, unknown> }>;

const withinBound = <T>(work: Promise<T>, ms: number): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), ms);
  });
  return Promise.race([work, bound]).finally(() => clearTimeout(timer));
};

export interface RuntimeReport {
  status: 'stopped' | 'starting' | 'running' | 'unavailable';
  restarts: number;
  nextAttemptAt: string | null;
}

export interface Readiness {
  ok: boolean;
  database: string;
  pendingMigrations: string[];
  functionsRuntime: RuntimeReport;
  /** Problems that do not stop this server from serving (absent when none). */
  warnings?: string[];
}

/** Starts the liveness monitor; `stop()` ends it with the app. */
export function createHealthService(
  deps: Pick<Deps, 'sql' | 'migrations' | 'clock' | 'runtime'>,
  warnings?: () => Promise<string[]>,
) {
  const liveness = startLivenessMonitor(guardOf(deps.sql));
  const checks: ReadinessCheck[] = [
    async () => {
      try {
        const pending = await withinBound(pendingMigrations(deps.sql, deps.migrations), READY_DATABASE_BOUND_MS);
        return { ok: pending.length === 0, fields: { database: 'ok', pendingMigrations: pending } };
      } catch {
        return { ok: false, fields: { database: 'unreachable', pendingMigrations: [] } };
      }
    },
    // The rest of the API serves without the function runtime: reported, never failing readiness.
    async () => {
      const { status, restarts, nextAttemptAt } = deps.runtime.health;
      return { ok: true, fields: { functionsRuntime: { status, restarts, nextAttemptAt } } };
    },
    // Reported, never failing readiness: the server still serves (a bounded wait, then unknown).
    async () => {
      if (!warnings) return { ok: true, fields: {} };
      const found = await withinBound(warnings(), READY_DATABASE_BOUND_MS).catch(() => []);
      return { ok: true, fields: found.length > 0 ? { warnings: found } : {} };
    },
  ];

  return {
    /** The service, version and time, and why the process is wedged (undefined when it is not). */
    liveness() {
      return {
        base: {
          version: COMPATIBILITY_VERSION,
          plinthVersion: VERSION,
          service: 'Plinth',
          timestamp: deps.clock.now().toISOString(),
        },
        wedged: liveness.wedged(),
      };
    },
    async readiness(): Promise<Readiness> {
      const results = await Promise.all(checks.map((check) => check()));
      const fields = Object.assign({}, ...results.map((r) => r.fields)) as Omit<Readiness, 'ok'>;
      return { ...fields, ok: results.every((r) => r.ok) };
    },
    /**
     * The platform migrations this database has applied, and those of this server's files it has
     * not (none once this server started). `plinth upgrade check` compares a newer version's files
     * with `applied`.
     */
    async platformMigrations(): Promise<{ applied: string[]; pending: string[] }> {
      const applied = (await appliedMigrationNames(deps.sql)) ?? [];
      const done = new Set(applied);
      return { applied, pending: deps.migrations.map((m) => m.name).filter((name) => !done.has(name)) };
    },
    stop: () => liveness.stop(),
  };
}

export type HealthService = ReturnType<typeof createHealthService>;
