// Delivery of one row-change message (from a watched table) on this server: the sockets in the
// channel's room are grouped by role and claims, the row's visibility is checked once per group
// at delivery time, and each group receives the change only when it may SELECT the row:
// INSERT/UPDATE when it sees the row as it is now, DELETE when it saw the deleted row. An UPDATE
// carries `old` only to those who could also see the old row.
import type { Server, Socket } from 'socket.io';
import type { RequestScope, Sql } from '../../core/db.js';
import { rowVisibility } from './row-visibility.repo.js';

export interface RowChange {
  table: string;
  key: Record<string, unknown>;
  eventName: string;
  payload: { old?: Record<string, unknown> | null; [field: string]: unknown };
}

/** Emits `change` to the sockets of `room` that may see it; returns how many it reached. */
export async function deliverRowChange(
  sql: Sql,
  io: Server,
  room: string,
  change: RowChange,
  body: (payload: Record<string, unknown>) => Record<string, unknown>,
): Promise<number> {
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
  if (groups.size === 0) return 0;
  const list = [...groups.values()];
  const old = change.payload.old ?? undefined;
  const seen = await rowVisibility(
    sql,
    { table: change.table, key: change.key },
    list.map((g) => g.scope),
    { current: change.eventName !== 'DELETE', image: change.eventName === 'INSERT' ? undefined : old },
  );
  let reached = 0;
  list.forEach((group, i) => {
    const visible = change.eventName === 'DELETE' ? seen.image[i] : seen.current[i];
    if (!visible) return;
    const payload = change.eventName === 'UPDATE' && !seen.image[i] ? { ...change.payload, old: null } : change.payload;
    io.local.to(group.sockets).emit(change.eventName, body(payload));
    reached += group.sockets.length;
  });
  return reached;
}
