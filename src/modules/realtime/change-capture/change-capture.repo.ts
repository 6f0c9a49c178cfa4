// SQL of logical change capture: the database's capture mode and its switch, the leader's
// advisory lock, the replication slot (name, creation, drop, what it retains), the server
// settings it depends on, and the publishing of decoded changes (realtime.publish_captured_changes).
import type { Queryable } from '../../../core/db.js';

export type CaptureMode = 'triggers' | 'logical';

/** The publication the slot reads (migration 20261201300000). */
export const PUBLICATION = 'plinth_realtime';

/** The session advisory lock the leader holds, per database: hashtext() of this text. */
const LEADER_LOCK = 'plinth.realtime.change_capture';

export async function captureMode(db: Queryable): Promise<CaptureMode> {
  const [row] = await db<{ mode: CaptureMode }[]>`select mode from realtime.change_capture`;
  return row?.mode ?? 'triggers';
}

/** Moves every watched table to `mode` (one transaction); true when the mode changed. */
export async function setCaptureMode(db: Queryable, mode: CaptureMode): Promise<boolean> {
  const [row] = await db<{ changed: boolean }[]>`select realtime.set_change_capture(${mode}) as changed`;
  return row?.changed ?? false;
}

export async function tryLeaderLock(db: Queryable): Promise<boolean> {
  const [row] = await db<{ locked: boolean }[]>`select pg_try_advisory_lock(hashtext(${LEADER_LOCK})) as locked`;
  return row?.locked ?? false;
}

/** This database's slot name: slots are per cluster, so it is derived from the database's name. */
export async function slotName(db: Queryable): Promise<string> {
  const [row] = await db<{ name: string }[]>`select 'plinth_realtime_' || left(md5(current_database()), 16) as name`;
  return row!.name;
}

export interface ServerSettings {
  walLevel: string;
  /** max_slot_wal_keep_size in MB; -1 is unbounded (a stuck slot can fill the disk). */
  maxSlotWalKeepSizeMb: number;
}

export async function serverSettings(db: Queryable): Promise<ServerSettings> {
  const [row] = await db<{ walLevel: string; keep: string }[]>`
    select current_setting('wal_level') as "walLevel",
      (select setting from pg_settings where name = 'max_slot_wal_keep_size') as keep`;
  return { walLevel: row?.walLevel ?? 'replica', maxSlotWalKeepSizeMb: Number(row?.keep ?? -1) };
}

export interface SlotState {
  active: boolean;
  /** WAL the slot keeps from being removed: current position − restart_lsn. */
  retainedBytes: number;
  /** Decoded changes not yet confirmed: current position − confirmed_flush_lsn. */
  unconfirmedBytes: number;
  /** reserved, extended, unreserved or lost (max_slot_wal_keep_size passed: changes were lost). */
  walStatus: string | null;
  confirmedFlushLsn: string | null;
}

/** The slot as pg_replication_slots shows it; null when there is none. */
export async function slotState(db: Queryable, slot: string): Promise<SlotState | null> {
  const [row] = await db<
    {
      active: boolean;
      retained: string | null;
      unconfirmed: string | null;
      walStatus: string | null;
      confirmed: string | null;
    }[]
  >`
    select active, pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::bigint::text as retained,
      pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::bigint::text as unconfirmed,
      wal_status as "walStatus", confirmed_flush_lsn::text as confirmed
    from pg_replication_slots where slot_name = ${slot} and database = current_database()`;
  if (!row) return null;
  return {
    active: row.active,
    retainedBytes: Number(row.retained ?? 0),
    unconfirmedBytes: Number(row.unconfirmed ?? 0),
    walStatus: row.walStatus,
    confirmedFlushLsn: row.confirmed,
  };
}

export async function createSlot(db: Queryable, slot: string): Promise<void> {
  await db`select pg_create_logical_replication_slot(${slot}, 'pgoutput')`;
}

/** Drops the slot unless a consumer holds it; true when it was dropped (or did not exist). */
export async function dropSlotIfIdle(db: Queryable, slot: string): Promise<boolean> {
  const [row] = await db<{ held: boolean }[]>`
    select exists (select from pg_replication_slots where slot_name = ${slot} and active) as held`;
  if (row?.held) return false;
  await db`select pg_drop_replication_slot(slot_name) from pg_replication_slots where slot_name = ${slot}`;
  return true;
}

/** One decoded change: its table, operation and row images (column → text as pgoutput sent it). */
export interface CapturedChange {
  idBase: string;
  /** Its transaction's id (publishing waits until other sessions see that transaction committed). */
  xid: number;
  relid: number;
  op: 'INSERT' | 'UPDATE' | 'DELETE';
  newRow: Record<string, string | null> | null;
  oldRow: Record<string, string | null> | null;
}

/**
 * Publishes changes in order in one statement (realtime.publish_captured_changes: the row images
 * built per table, every message in one INSERT), so all of them or none are stored, in one round
 * trip. Returns the number of messages stored (a change decoded again stores none).
 */
export async function publishChanges(db: Queryable, changes: CapturedChange[]): Promise<number> {
  const batch = changes.map((c) => ({
    i: c.idBase,
    x: c.xid,
    r: c.relid,
    o: c.op,
    ...(c.newRow === null ? {} : { n: c.newRow }),
    ...(c.oldRow === null ? {} : { d: c.oldRow }),
  }));
  const [row] = await db<{ stored: number }[]>`
    select realtime.publish_captured_changes(${JSON.stringify(batch)}::text::jsonb) as stored`;
  return row?.stored ?? 0;
}
