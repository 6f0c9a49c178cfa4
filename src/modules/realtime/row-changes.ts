// Delivery of one row-change message (from a watched table) on this server: the sockets in the
// channel's room are grouped by role and claims, and each group receives the change only when it
// may SELECT the row as the event's image shows it, judged at delivery time (INSERT/UPDATE: the
// new row, and the row as it is now too; DELETE: the deleted row), so an image the row had only
// for a moment reaches no one it was hidden from; an UPDATE carries `old` only to those who could
// also see the old row. Each group receives only the columns its role may SELECT, and no UPDATE
// that changed none of them.
import type { Server, Socket } from 'socket.io';
import type { RequestScope, Sql } from '../../core/db.js';
import { onlyColumns, type ReadableColumns } from './readable-columns.js';
import { imagesVisibility, type RowImage } from './row-visibility.repo.js';

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
  );
  if (!scopes.some((_, i) => seen[0]?.[i])) return scopes.map(() => null);
  const columns = await readable.of(
    change.table,
    scopes.filter((_, i) => seen[0]?.[i]).map((s) => s.role),
    schemaVersion,
  );
  return scopes.map((scope, i) => {
    if (!seen[0]?.[i]) return null;
    const readableByRole = columns.get(scope.role) ?? new Set<string>();
    const oldSeen = change.eventName === 'DELETE' || seen[1]?.[i] === true;
    const shown = {
      new: onlyColumns(newImage, readableByRole),
      old: oldSeen ? onlyColumns(oldImage, readableByRole) : null,
    };
    // A change to columns this role cannot read is no news to it (and would tell it they changed).
    if (change.eventName === 'UPDATE' && shown.old && JSON.stringify(shown.new) === JSON.stringify(shown.old)) {
      return null;
    }
    return { ...change.payload, ...shown };
  });
}

/** Emits `change` to the sockets of `room` that may see it; returns how many it reached. */
export async function deliverRowChange(
  sql: Sql,
  readable: ReadableColumns,
  io: Server,
  room: string,
  change: RowChange,
  body: (payload: Record<string, unknown>) => Record<string, unknown>,
): Promise<number> {
  const groups = groupsOf(io, room);
  const shown = await judgeRowChange(
    sql,
    readable,
    groups.map((g) => g.scope),
    change,
  );
  let reached = 0;
  for (const [i, group] of groups.entries()) {
    const payload = shown[i];
    if (!payload) continue;
    io.local.to(group.sockets).emit(change.eventName, body(payload));
    reached += group.sockets.length;
  }
  return reached;
}
