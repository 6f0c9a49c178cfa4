// Delivery of row-change messages (from a watched table) on this server: the sockets in the
// channel's room are grouped by role and claims, and each group receives a change only when it
// may SELECT the row as the event's image shows it, judged at delivery time (INSERT/UPDATE: the
// new row, and the row as it is now too; DELETE: the deleted row), so an image the row had only
// for a moment reaches no one it was hidden from; an UPDATE carries `old` only to those who could
// also see the old row. Each group receives only the columns its role may SELECT, and no UPDATE
// that changed none of them. The changes of one table announced together are judged together
// (one round trip for those whose row is still as their image shows it).
import type { Server, Socket } from 'socket.io';
import type { RequestScope, Sql } from '../../core/db.js';
import { onlyColumns, type ReadableColumns } from './readable-columns.js';
import { imagesVisibility, type ReadNow, type RowImage, rowsNowVisibility } from './row-visibility.repo.js';

export interface RowChange {
  table: string;
  key: Record<string, unknown>;
  eventName: string;
  payload: { new?: RowImage | null; old?: RowImage | null; [field: string]: unknown };
}

/** The sockets of `room` grouped by role and claims (the scope a visibility check runs in). */
function groupsOf(io: Server, room: string): { scope: RequestScope; sockets: string[] }[] {
  const groups = new Map<string, { scope: RequestScope; sockets: string[] }>();
  for (const id of io.of('/').adapter.rooms.get(room) ?? []) {
    const socket = io.of('/').sockets.get(id) as Socket | undefined;
    const scope = (socket?.data as { scope?: RequestScope } | undefined)?.scope;
    if (!scope) continue;
    const groupKey = JSON.stringify([scope.role, scope.claims]);
    const group = groups.get(groupKey) ?? { scope, sockets: [] };
    group.sockets.push(id);
    groups.set(groupKey, group);
  }
  return [...groups.values()];
}

/**
 * What each group of subscribers (one role and claims each) may see of `change`: the payload with
 * only its readable columns, or null (hidden row, or an UPDATE of none of its columns). The one
 * judgement every transport's delivery uses.
 */
export async function judgeRowChange(
  sql: Sql,
  readable: ReadableColumns,
  scopes: RequestScope[],
  change: RowChange,
  readNow?: ReadNow,
): Promise<(RowChange['payload'] | null)[]> {
  const { new: newImage, old: oldImage } = change.payload;
  // The image the event is about, then (an UPDATE's) the old one.
  const carried = change.eventName === 'DELETE' ? oldImage : newImage;
  if (scopes.length === 0 || !carried) return scopes.map(() => null);
  const images = change.eventName === 'UPDATE' && oldImage ? [carried, oldImage] : [carried];
  const { seen, schemaVersion } = await imagesVisibility(
    sql,
    { table: change.table, key: change.key },
    scopes,
    images,
    { now: change.eventName !== 'DELETE' },
    readNow,
  );
  return shownTo(readable, scopes, change, seen[0] ?? [], seen[1] ?? [], schemaVersion);
}

/**
 * The payload each scope receives, given who may see the event's row (`seen`) and, for an
 * UPDATE, its old row (`oldSeen`): only its readable columns; null for a hidden row or an UPDATE
 * of none of its columns.
 */
async function shownTo(
  readable: ReadableColumns,
  scopes: RequestScope[],
  change: RowChange,
  seen: boolean[],
  oldSeen: boolean[],
  schemaVersion: string | null,
): Promise<(RowChange['payload'] | null)[]> {
  if (!scopes.some((_, i) => seen[i])) return scopes.map(() => null);
  const { new: newImage, old: oldImage } = change.payload;
  const columns = await readable.of(
    change.table,
    scopes.filter((_, i) => seen[i]).map((s) => s.role),
    schemaVersion,
  );
  return scopes.map((scope, i) => {
    if (!seen[i]) return null;
    const readableByRole = columns.get(scope.role) ?? new Set<string>();
    const shown = {
      new: onlyColumns(newImage, readableByRole),
      old: change.eventName === 'DELETE' || oldSeen[i] === true ? onlyColumns(oldImage, readableByRole) : null,
    };
    // A change to columns this role cannot read is no news to it (and would tell it they changed).
    if (change.eventName === 'UPDATE' && shown.old && JSON.stringify(shown.new) === JSON.stringify(shown.old)) {
      return null;
    }
    return { ...change.payload, ...shown };
  });
}

/** Changes of one table judged together at most (the size of one statement's parameter). */
const JUDGED_TOGETHER = 500;

/**
 * judgeRowChange for many changes of one table, in order: the INSERTs (and UPDATEs without an old
 * image) whose row is still as their image shows it are judged together, in one round trip per
 * JUDGED_TOGETHER; any other (a DELETE, an UPDATE's old side, a row changed again since) alone.
 */
export async function judgeRowChanges(
  sql: Sql,
  readable: ReadableColumns,
  scopes: RequestScope[],
  changes: RowChange[],
  readNow?: ReadNow,
): Promise<(RowChange['payload'] | null)[][]> {
  const together = (change: RowChange) =>
    change.eventName !== 'DELETE' && change.payload.new && !(change.eventName === 'UPDATE' && change.payload.old);
  const judged: ((RowChange['payload'] | null)[] | undefined)[] = changes.map(() => undefined);
  const batch = changes.flatMap((change, i) => (together(change) ? [i] : []));
  if (scopes.length > 0 && batch.length > 1) {
    for (let start = 0; start < batch.length; start += JUDGED_TOGETHER) {
      const part = batch.slice(start, start + JUDGED_TOGETHER);
      const first = changes[part[0]!]!;
      // A batch that cannot be judged together (a key its table no longer has, say) is judged
      // one change at a time below, so one change cannot cost the others their delivery.
      const now = await rowsNowVisibility(
        sql,
        first.table,
        part.map((i) => ({ key: changes[i]!.key, image: changes[i]!.payload.new as RowImage })),
        scopes,
        readNow,
      ).catch(() => null);
      if (!now) continue;
      for (const [n, i] of part.entries()) {
        if (now.same[n]) judged[i] = await shownTo(readable, scopes, changes[i]!, now.seen[n]!, [], now.schemaVersion);
      }
    }
  }
  const shown: (RowChange['payload'] | null)[][] = [];
  for (const [i, change] of changes.entries())
    shown.push(judged[i] ?? (await judgeRowChange(sql, readable, scopes, change, readNow)));
  return shown;
}

/** The sockets of a room grouped by role and claims, and what each change shows each group. */
export interface RoomJudgement {
  groups: { scope: RequestScope; sockets: string[] }[];
  /** Per change, per group: its payload, or null. */
  shown: (RowChange['payload'] | null)[][];
}

/** Judges `changes` (of one table, in order) for the sockets now in `room`, together. */
export async function judgeInRoom(
  sql: Sql,
  readable: ReadableColumns,
  io: Server,
  room: string,
  changes: RowChange[],
  readNow?: ReadNow,
): Promise<RoomJudgement> {
  const groups = groupsOf(io, room);
  const shown = await judgeRowChanges(
    sql,
    readable,
    groups.map((g) => g.scope),
    changes,
    readNow,
  );
  return { groups, shown };
}

/** Emits one judged change to the groups that may see it; returns how many sockets it reached. */
export function emitJudged(
  io: Server,
  groups: RoomJudgement['groups'],
  shown: (RowChange['payload'] | null)[],
  eventName: string,
  body: (payload: Record<string, unknown>) => Record<string, unknown>,
): number {
  let reached = 0;
  for (const [i, group] of groups.entries()) {
    const payload = shown[i];
    if (!payload) continue;
    io.local.to(group.sockets).emit(eventName, body(payload));
    reached += group.sockets.length;
  }
  return reached;
}
