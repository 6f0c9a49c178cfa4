// The logs service: the writer that buffers entries and stores them in batches, the daily
// partitions it creates ahead and drops after each kind's retention, search, the audit trail,
// the reference platform's per-source view, and the live tail.
import { randomUUID } from 'node:crypto';
import type { FunctionOutput } from '../../platform/functions-runtime/supervisor.js';
import type { Deps } from '../../deps.js';
import { AppError } from '../../core/errors.js';
import { createCompanionConnection } from '../../core/db.js';
import { settlesWithin } from '../../core/settles-within.js';
import { type LogEntry, LOG_SOURCES, type LogSource } from './log-entry.js';
import { type Audit, type SearchResult, toAudit, toSearchResult } from './log-views.js';
import { COPY_HEADER, COPY_TRAILER, maxTupleBytes, prepareEntry, writeTuple } from './copy-tuple.js';
import { createLogWriter, type LogBatch, type LogWriter } from './log-writer.js';
import { createTableFollower } from './table-follower.js';
import { addDays, dayOf, dayOfPartition, partitionName } from './partitions.js';
import { printable } from '../../core/printable.js';
import { CONSOLE_ROUTES } from '../dashboard/index.js';
import {
  auditStats,
  copyEntries,
  countEntries,
  createPartition,
  dropPartition,
  type EntryFilter,
  listPartitions,
  readRetention,
  searchEntries,
  type StoredEntry,
  writeRetention,
} from './logs.repo.js';

const DAY_MS = 86_400_000;
/** Days of partitions made ahead of today, so the first write of a day never waits for one. */
const DAYS_AHEAD = 2;
/** Counting stops here: a search over millions of rows never counts them all. */
const COUNT_CAP = 10_000;

/** Source names a caller may use: Plinth's own, and the reference platform's file names. */
const SOURCE_ALIASES: Record<string, LogSource[]> = {
  requests: ['requests'],
  functions: ['functions'],
  audit: ['audit'],
  errors: ['errors'],
  'insforge.logs': ['requests', 'errors'],
  'plinth.logs': ['requests', 'errors'],
  'function.logs': ['functions'],
  'postgres.logs': [],
  'postgREST.logs': [],
};

/** The sources a name stands for (undefined: an unknown name). */
export const sourcesNamed = (name: string): LogSource[] | undefined => SOURCE_ALIASES[name];

/** The sources a filter names (all when none); an unknown name is the caller's mistake. */
function sourcesOf(name: string | undefined): LogSource[] {
  if (name === undefined) return [...LOG_SOURCES];
  const sources = sourcesNamed(name);
  if (sources) return sources;
  throw new AppError('VALIDATION_ERROR', `Unknown log source "${name}".`, {
    nextActions: `Use one of: ${Object.keys(SOURCE_ALIASES).join(', ')}.`,
  });
}

export interface SearchQuery {
  q?: string;
  source?: string;
  slug?: string;
  level?: string;
  status?: number;
  userId?: string;
  requestId?: string;
  /** Leave out the web console's own requests (its pages, files and the `/` redirect). */
  excludeConsole?: boolean;
  from?: Date;
  to?: Date;
  limit: number;
  offset: number;
}

export interface AuditQuery {
  actor?: string;
  action?: string;
  module?: string;
  from?: Date;
  to?: Date;
  limit: number;
  offset: number;
}

export interface Page<T> {
  items: T[];
  offset: number;
  /** null: more than the count cap. */
  total: number | null;
}

export interface TailFilter {
  source?: string;
  slug?: string;
  level?: string;
}

export type Retention = Record<LogSource, number>;

export interface AuditStats {
  totalLogs: number;
  uniqueActors: number;
  uniqueModules: number;
  actionsByModule: Record<string, number>;
  recentActivity: Audit[];
}

/** The least time the last entries get to be stored at a stop (the grace period may be 0). */
const FINAL_FLUSH_MIN_MS = 1_000;

/** How many audit records the summary lists as recent activity (the reference's ten). */
const RECENT_AUDITS = 10;

export interface LogsService {
  record(entry: LogEntry): void;
  /** A line a function printed, as a functions entry of its slug and invocation's request id. */
  recordFunctionOutput(output: FunctionOutput): void;
  /** Stores what is buffered now (tests, shutdown). */
  flush(): Promise<void>;
  droppedCount(): number;
  /** Every new entry matching the filter, as it is recorded (the live tail); returns the unsubscribe. */
  tail(filter: TailFilter, listener: (line: SearchResult) => void): () => void;
  /** Creates the coming days' partitions and drops those past each kind's retention. */
  runMaintenance(): Promise<{ created: number; dropped: string[] }>;
  search(query: SearchQuery): Promise<Page<SearchResult>>;
  audits(query: AuditQuery): Promise<Page<Audit>>;
  /** The reference's audit summary over the last `days` days. */
  auditStats(days: number): Promise<AuditStats>;
  /** The newest `limit` entries of a source before `before`, oldest first (the reference's view). */
  sourceEntries(
    name: string,
    limit: number,
    before?: Date,
  ): Promise<{ logs: Omit<SearchResult, 'source'>[]; total: number }>;
  retention(): Promise<Retention>;
  updateRetention(change: Partial<Retention>): Promise<Retention>;
  close(): Promise<void>;
}

export function createLogsService(
  deps: Pick<Deps, 'sql' | 'directSql' | 'clock' | 'config'>,
  onError: (err: unknown) => void,
) {
  const { sql, clock } = deps;
  const settings = deps.config.logs;
  /** Partitions known to exist ("source day" keys); a miss creates it before the insert. */
  const knownPartitions = new Set<string>();
  /**
   * Where batches are stored: a connection of the writer's own, outside the requests' pool, and
   * direct (DATABASE_DIRECT_URL): its binary COPYs through PgBouncer 1.18 in transaction mode
   * stalled the pooler's server connections (test/integration/scale-out/pgbouncer.test.ts).
   */
  const writerConnection = createCompanionConnection(deps.directSql, 'plinth-log-writer');

  async function ensurePartition(source: LogSource, day: Date): Promise<boolean> {
    const name = partitionName(source, day);
    if (knownPartitions.has(name)) return false;
    try {
      await createPartition(sql, source, name, day, addDays(day, 1));
    } catch (err) {
      // Another server created it at the same moment.
      if (!/already exists|duplicate key/.test(String((err as Error).message))) throw err;
    }
    knownPartitions.add(name);
    return true;
  }

  async function store(batch: LogBatch): Promise<void> {
    // Every source's partitions for the days the batch spans (known ones cost nothing).
    for (let day = dayOf(new Date(batch.oldestMs)); day.getTime() <= batch.newestMs; day = addDays(day, 1)) {
      for (const source of LOG_SOURCES) await ensurePartition(source, day);
    }
    await copyEntries(writerConnection, batch.bytes);
  }

  const writer: LogWriter = createLogWriter({
    encoding: {
      header: COPY_HEADER,
      trailer: COPY_TRAILER,
      prepare: prepareEntry,
      maxBytes: maxTupleBytes,
      write: writeTuple,
    },
    store,
    maxBuffered: settings.bufferMax,
    batchSize: settings.batchSize,
    flushIntervalMs: settings.flushIntervalMs,
    onError,
  });

  async function retention(): Promise<Retention> {
    const rows = await readRetention(sql);
    return Object.fromEntries(rows.map((r) => [r.source, r.days])) as Retention;
  }

  async function runMaintenance() {
    const today = dayOf(clock.now());
    const keep = await retention();
    let created = 0;
    const dropped: string[] = [];
    for (const source of LOG_SOURCES) {
      for (let ahead = 0; ahead <= DAYS_AHEAD; ahead++) {
        if (await ensurePartition(source, addDays(today, ahead))) created++;
      }
      // A partition goes once its whole day is older than the retention.
      const oldestKept = addDays(today, -keep[source]);
      for (const name of await listPartitions(sql, source)) {
        const day = dayOfPartition(name);
        if (day && day < oldestKept) {
          await dropPartition(sql, name);
          knownPartitions.delete(name);
          dropped.push(name);
        }
      }
    }
    return { created, dropped };
  }

  // Other servers' entries reach this server's tail once they flush them: look back past that.
  const follower = createTableFollower(sql, clock, settings.flushIntervalMs + 5_000);

  const maintenanceTimer = setInterval(() => void runMaintenance().catch(onError), settings.maintenanceIntervalMs);
  maintenanceTimer.unref();

  async function page<T>(filter: EntryFilter, limit: number, offset: number, view: (e: StoredEntry) => T) {
    const rows = await searchEntries(sql, filter, limit, offset);
    // A page cut short by the end of the matches tells the total: no second read of them (a text
    // search that matches little reads every row of its range, and would read them all twice).
    const ended = rows.length < limit && (rows.length > 0 || offset === 0);
    const counted = ended ? offset + rows.length : await countEntries(sql, filter, COUNT_CAP);
    return { items: rows.map(view), offset, total: counted > COUNT_CAP ? null : counted };
  }

  const service: LogsService = {
    record: (entry) => writer.add(entry),
    recordFunctionOutput(output) {
      writer.add({
        id: randomUUID(),
        ts: clock.now(),
        source: 'functions',
        level: output.level,
        method: null,
        route: null,
        status: null,
        durationMs: null,
        principal: null,
        userId: null,
        ip: null,
        requestId: output.requestId,
        slug: output.slug,
        // A function's output is anyone's text: stored escaped, so no reader's terminal obeys it.
        message: printable(output.message),
        details: null,
      });
    },
    flush: () => writer.flush(),
    droppedCount: () => writer.dropped(),
    tail(filter, listener) {
      const sources = sourcesOf(filter.source);
      const matches = (entry: StoredEntry) =>
        sources.includes(entry.source) &&
        (filter.slug === undefined || entry.slug === filter.slug) &&
        (filter.level === undefined || entry.level === filter.level);
      const stopLocal = writer.subscribe((entry) => {
        follower.recordedHere(entry.id);
        if (matches(entry)) listener(toSearchResult(entry));
      });
      const stopRemote = follower.follow((entry) => {
        if (matches(entry)) listener(toSearchResult(entry));
      });
      return () => {
        stopLocal();
        stopRemote();
      };
    },
    runMaintenance,
    search(query) {
      const sources = sourcesOf(query.source);
      const filter: EntryFilter = {
        sources,
        from: query.from,
        to: query.to,
        level: query.level,
        slug: query.slug,
        status: query.status,
        userId: query.userId,
        requestId: query.requestId,
        text: query.q,
        excludeRoutes: query.excludeConsole ? CONSOLE_ROUTES : undefined,
      };
      return page(filter, query.limit, query.offset, toSearchResult);
    },
    audits(query) {
      const filter: EntryFilter = {
        sources: ['audit'],
        from: query.from,
        to: query.to,
        actor: query.actor,
        action: query.action,
        module: query.module,
      };
      return page(filter, query.limit, query.offset, toAudit);
    },
    async auditStats(days) {
      const from = new Date(clock.now().getTime() - days * DAY_MS);
      const [{ totals, byModule }, recent] = await Promise.all([
        auditStats(sql, from),
        searchEntries(sql, { sources: ['audit'], from }, RECENT_AUDITS, 0),
      ]);
      return {
        totalLogs: totals.total,
        uniqueActors: totals.actors,
        uniqueModules: totals.modules,
        actionsByModule: Object.fromEntries(byModule.map((m) => [m.module, m.count])),
        recentActivity: recent.map(toAudit),
      };
    },
    async sourceEntries(name, limit, before) {
      const sources = sourcesNamed(name) ?? [];
      if (sources.length === 0) return { logs: [], total: 0 };
      const filter: EntryFilter = { sources, to: before ?? clock.now() };
      const [entries, total] = await Promise.all([
        searchEntries(sql, filter, limit, 0),
        countEntries(sql, filter, COUNT_CAP),
      ]);
      return {
        logs: entries
          .reverse()
          .map(toSearchResult)
          .map(({ source: _, ...line }) => line),
        total,
      };
    },
    retention,
    async updateRetention(change) {
      for (const source of LOG_SOURCES) {
        const days = change[source];
        if (days !== undefined) await writeRetention(sql, source, days);
      }
      return retention();
    },
    async close() {
      clearInterval(maintenanceTimer);
      follower.close();
      // A database that stops answering must not hold the stop: what it has not stored by the end
      // of the grace period (at least 1 s) is lost, and said so.
      const ms = Math.max(deps.config.shutdownGraceMs, FINAL_FLUSH_MIN_MS);
      const stored = await settlesWithin(writer.close(), ms);
      if (!stored) {
        onError(new Error(`the database did not store the last log entries within ${ms} ms: they are lost`));
      }
      await writerConnection.end({ timeout: stored ? 5 : 0 });
    },
  };
  return service;
}
