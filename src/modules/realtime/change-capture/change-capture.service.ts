// Change capture on one server. REALTIME_CHANGES=logical: every server campaigns for the lead
// (a session advisory lock on a connection of its own, tried every REALTIME_CHANGES_LEADER_POLL_MS);
// the leader makes sure the slot exists (before watched tables leave their triggers, so no change
// falls between the two), switches the database to logical capture, streams the slot and
// publishes each committed transaction, confirming its position only once published. A lost
// connection, a stream error or a stop ends the term and releases the lock; another server (or
// this one, later) takes over from the last confirmed position. REALTIME_CHANGES=triggers: a
// database left in logical mode is switched back and its slot dropped when no one holds it.
import postgres from 'postgres';
import type { Sql } from '../../../core/db.js';
import type { Deps } from '../../../deps.js';
import * as repo from './change-capture.repo.js';
import { createChangePublisher, MAX_PENDING_CHANGES } from './change-publisher.js';
import { parseLsn } from './lsn.js';
import { type DirectConnection, type SlotReader, startSlotReader } from './slot-reader.js';

export interface CaptureLog {
  info(message: string): void;
  warn(message: string, err?: unknown): void;
  error(message: string, err?: unknown): void;
}

export type CaptureRole = 'off' | 'follower' | 'leader';

export interface CaptureStatus {
  mode: repo.CaptureMode;
  role: CaptureRole;
  slot: string | null;
  slotActive: boolean;
  retainedWalBytes: number;
  unconfirmedWalBytes: number;
  walStatus: string | null;
  walLevel: string;
  maxSlotWalKeepSizeMb: number;
  /** Changes this server published (as leader) and skipped (could not be published), since start. */
  published: number;
  skipped: number;
  warnings: string[];
}

/** The settings of a direct connection for the replication stream, from the direct pool's (DATABASE_DIRECT_URL). */
function directConnection(sql: Sql): DirectConnection {
  const o = sql.options as unknown as {
    host: string[];
    port: number[];
    user: string;
    pass: unknown;
    database: string;
  };
  return {
    host: o.host[0] ?? '127.0.0.1',
    port: o.port[0] ?? 5432,
    user: o.user,
    password: typeof o.pass === 'string' ? o.pass : undefined,
    database: o.database,
    application_name: 'plinth-change-capture',
  };
}

export function createChangeCapture(deps: Pick<Deps, 'sql' | 'directSql' | 'config'>, log: CaptureLog) {
  const { mode, leaderPollMs, walWarnBytes } = deps.config.realtimeChanges;
  let role: CaptureRole = mode === 'logical' ? 'follower' : 'off';
  let stopped = false;
  let endTerm: () => void = () => {};
  let wake: () => void = () => {};
  let campaign: Promise<void> | undefined;
  let slot: string | undefined;
  const counts = { published: 0, skipped: 0 };
  const warnedOnce = new Set<string>();
  const warnOnce = (message: string) => {
    if (warnedOnce.has(message)) return;
    warnedOnce.add(message);
    log.warn(message);
  };

  const slotOf = async () => (slot ??= await repo.slotName(deps.sql));

  /** Streams the slot and publishes until the term ends (stop, lost connection, stream error). */
  async function stream(conn: Sql, name: string, termOver: Promise<void>): Promise<void> {
    const start = await repo.slotState(conn, name);
    let confirmed = parseLsn(start?.confirmedFlushLsn ?? '0/0');
    let reader: SlotReader | undefined;
    let failPublishing: (err: unknown) => void = () => {};
    const publisher = createChangePublisher(conn, {
      published(endLsn, changes) {
        confirmed = endLsn;
        counts.published += changes;
        reader?.confirm(endLsn);
      },
      skipped(change, err) {
        counts.skipped += 1;
        log.error(`realtime change capture: a change of table ${change.relid} could not be published; skipped`, err);
      },
      lost: (err) => failPublishing(err),
    });
    try {
      while (!stopped) {
        let paused = false;
        const current = startSlotReader({
          connection: directConnection(deps.directSql),
          slot: name,
          confirmed,
          drained: publisher.drained,
          onTransaction(tx) {
            publisher.add(tx);
            // Too much decoded and not yet published: stop reading; the slot keeps the rest.
            if (!paused && publisher.pendingChanges() > MAX_PENDING_CHANGES) {
              paused = true;
              void current.stop();
            }
          },
        });
        reader = current;
        const publishingFailed = new Promise<never>((_, reject) => {
          failPublishing = reject;
        });
        await Promise.race([current.ended, termOver, publishingFailed]);
        if (!paused) return;
        await publisher.idle();
      }
    } finally {
      await reader?.stop();
      publisher.halt();
      await publisher.idle();
    }
  }

  /** One attempt at the lead: returns at once when another server holds it, else when the term ends. */
  async function term(): Promise<void> {
    let lose: (err: unknown) => void = () => {};
    const termOver = new Promise<void>((resolve, reject) => {
      endTerm = resolve;
      lose = reject;
    });
    termOver.catch(() => {});
    const conn = postgres({
      ...(deps.directSql.options as unknown as postgres.Options<Record<string, never>>),
      max: 1,
      idle_timeout: undefined,
      max_lifetime: null,
      connection: { ...deps.directSql.options.connection, application_name: 'plinth-change-capture-leader' },
      // The lock lives as long as this connection: losing it ends the term.
      onclose: () => lose(new Error('the change capture leader lost its database connection')),
    });
    try {
      if (stopped || !(await repo.tryLeaderLock(conn))) return;
      const settings = await repo.serverSettings(conn);
      if (settings.walLevel !== 'logical') {
        warnOnce(
          `realtime change capture: wal_level is ${settings.walLevel}; REALTIME_CHANGES=logical needs wal_level=logical (restart PostgreSQL with it). Table changes are not published meanwhile.`,
        );
        return;
      }
      if (settings.maxSlotWalKeepSizeMb < 0) {
        warnOnce(
          'realtime change capture: max_slot_wal_keep_size is unbounded (-1): a consumer that stops reading keeps WAL until the disk fills. Set it (e.g. 10GB) on the primary.',
        );
      }
      const name = await slotOf();
      const state = await repo.slotState(conn, name);
      if (state?.walStatus === 'lost') {
        log.error(
          `realtime change capture: slot ${name} lost WAL it needed (max_slot_wal_keep_size passed); changes since ${state.confirmedFlushLsn} were not published. Making a new slot.`,
        );
        await repo.dropSlotIfIdle(conn, name);
      }
      if (!state || state.walStatus === 'lost') await repo.createSlot(conn, name);
      if (await repo.setCaptureMode(conn, 'logical')) {
        log.info('realtime change capture: watched tables now publish through logical replication');
      }
      role = 'leader';
      log.info(`realtime change capture: this server leads (slot ${name})`);
      await stream(conn, name, termOver);
    } finally {
      role = 'follower';
      await conn.end({ timeout: 1 }).catch(() => {});
    }
  }

  async function runCampaign(): Promise<void> {
    while (!stopped) {
      await term().catch((err: unknown) => {
        if (!stopped) log.warn('realtime change capture: the leader term ended', err);
      });
      if (stopped) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, leaderPollMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** Triggers mode on a database left in logical mode: triggers back, the slot dropped if idle. */
  async function restoreTriggers(): Promise<void> {
    if ((await repo.captureMode(deps.sql)) !== 'logical') return;
    await repo.setCaptureMode(deps.sql, 'triggers');
    log.info('realtime change capture: watched tables publish through triggers again');
    const name = await slotOf();
    if (!(await repo.dropSlotIfIdle(deps.sql, name))) {
      log.warn(
        `realtime change capture: slot ${name} is still read by a server with REALTIME_CHANGES=logical; not dropped`,
      );
    }
  }

  async function status(): Promise<CaptureStatus> {
    const settings = await repo.serverSettings(deps.sql);
    const state = mode === 'logical' ? await repo.slotState(deps.sql, await slotOf()) : null;
    const warnings: string[] = [];
    if (mode === 'logical' && settings.walLevel !== 'logical') {
      warnings.push(`realtime change capture needs wal_level=logical (it is ${settings.walLevel})`);
    }
    if (state && state.retainedBytes > walWarnBytes) {
      warnings.push(
        `realtime change capture: the replication slot retains ${state.retainedBytes} bytes of WAL (over REALTIME_CHANGES_WAL_WARN_BYTES, ${walWarnBytes})`,
      );
    }
    if (state?.walStatus === 'lost' || state?.walStatus === 'unreserved') {
      warnings.push(`realtime change capture: the replication slot's WAL is ${state.walStatus}`);
    }
    return {
      mode,
      role,
      slot: mode === 'logical' ? (slot ?? null) : null,
      slotActive: state?.active ?? false,
      retainedWalBytes: state?.retainedBytes ?? 0,
      unconfirmedWalBytes: state?.unconfirmedBytes ?? 0,
      walStatus: state?.walStatus ?? null,
      walLevel: settings.walLevel,
      maxSlotWalKeepSizeMb: settings.maxSlotWalKeepSizeMb,
      published: counts.published,
      skipped: counts.skipped,
      warnings,
    };
  }

  return {
    mode,
    role: () => role,
    counts: () => ({ ...counts }),
    status,
    /** Starts campaigning (logical), or puts triggers back (triggers). */
    async start(): Promise<void> {
      if (mode === 'triggers') {
        await restoreTriggers();
        return;
      }
      campaign ??= runCampaign();
    },
    async stop(): Promise<void> {
      stopped = true;
      endTerm();
      wake();
      await campaign;
    },
  };
}

export type ChangeCapture = ReturnType<typeof createChangeCapture>;
