// The Phoenix transport's side of the shared delivery engine on this server: which joins listen
// on which Plinth channel (broadcast, presence) and watched-table channel (postgres_changes), and
// the delivery of what the engine hands it: broadcasts (minus the sender's own unless `self`,
// only to joins allowed to read them), presence diffs, and row changes judged by the engine's own
// row visibility and column rights per group of identical scopes, then matched to each join's
// bindings (event and filter).
import type { RequestScope, Sql } from '../../../core/db.js';
import {
  type DeliverableMessage,
  judgeRowChange,
  type PresenceEvent,
  type ReadableColumns,
  type ReadNow,
  type RowChange,
  SUPABASE_CHANNEL_PREFIX,
  type TransportSink,
} from '../../realtime/index.js';
import { type Connection, type Joined, pushOf, send } from './phoenix-connection.js';
import { changePayload, matchingIds, type ShownChange } from './postgres-bindings.js';
import { columnTypes } from './realtime.repo.js';
import type { StoredBroadcast } from './topics.js';

export interface PresenceMeta {
  key: string;
  payload: Record<string, unknown>;
}

export const metasOf = (presenceId: string, meta: PresenceMeta) => ({
  [meta.key]: { metas: [{ phx_ref: presenceId, ...meta.payload }] },
});

/** `readNow`: where the check of a changed row as it is now runs (a read replica when configured). */
export function createHub(
  sql: Sql,
  onSlow: (conn: Connection) => void,
  rejoinAll: () => Promise<void>,
  readNow?: ReadNow,
) {
  const byChannel = new Map<string, Set<Joined>>();
  const byTable = new Map<string, Set<Joined>>();
  const types = new Map<string, { name: string; type: string }[]>();

  const add = (index: Map<string, Set<Joined>>, key: string, joined: Joined) => {
    const set = index.get(key) ?? new Set();
    set.add(joined);
    index.set(key, set);
  };
  const remove = (index: Map<string, Set<Joined>>, key: string, joined: Joined) => {
    const set = index.get(key);
    if (!set) return;
    set.delete(joined);
    if (set.size === 0) index.delete(key);
  };

  const deliverBroadcast = (message: DeliverableMessage): number => {
    const stored = (message.payload ?? {}) as StoredBroadcast;
    let reached = 0;
    for (const joined of byChannel.get(message.channelName) ?? []) {
      if (!joined.rights.readBroadcast) continue;
      if (!joined.self && stored.sender === joined.senderId) continue;
      const payload = { type: 'broadcast', event: stored.event, payload: stored.payload };
      if (send(joined.conn, pushOf(joined, 'broadcast', payload), onSlow)) reached++;
    }
    return reached;
  };

  const columnsOf = async (schema: string, table: string, shown: Record<string, unknown>) => {
    const key = `${schema}.${table}`;
    let known = types.get(key);
    // Loaded once per table; again when a column shows up that it does not know (ALTER TABLE).
    if (!known || Object.keys(shown).some((name) => !known?.some((c) => c.name === name))) {
      known = await columnTypes(sql, schema, table);
      types.set(key, known);
    }
    return known;
  };

  const deliverChange = async (message: DeliverableMessage, readable: ReadableColumns): Promise<number> => {
    const joins = [...(byTable.get(message.channelName) ?? [])];
    if (joins.length === 0 || message.rowTable === null || message.rowKey === null) return 0;
    const payload = message.payload as RowChange['payload'] & { schema: string; table: string; type: string };
    const groups = new Map<string, { scope: RequestScope; joins: Joined[] }>();
    for (const joined of joins) {
      const key = JSON.stringify([joined.conn.scope.role, joined.conn.scope.claims]);
      const group = groups.get(key) ?? { scope: joined.conn.scope, joins: [] };
      group.joins.push(joined);
      groups.set(key, group);
    }
    const list = [...groups.values()];
    const shown = await judgeRowChange(
      sql,
      readable,
      list.map((g) => g.scope),
      { table: message.rowTable, key: message.rowKey, eventName: message.eventName, payload },
      readNow,
    );
    let reached = 0;
    for (const [i, group] of list.entries()) {
      const seen = shown[i];
      if (!seen) continue;
      const change: ShownChange = {
        type: message.eventName as ShownChange['type'],
        schema: payload.schema,
        table: payload.table,
        new: (seen.new as Record<string, unknown> | null) ?? null,
        old: (seen.old as Record<string, unknown> | null) ?? null,
      };
      const columns = await columnsOf(change.schema, change.table, change.new ?? change.old ?? {});
      for (const joined of group.joins) {
        const ids = matchingIds(joined.bindings, change);
        if (ids.length === 0) continue;
        const body = changePayload(ids, change, columns, message.createdAt.toISOString());
        if (send(joined.conn, pushOf(joined, 'postgres_changes', body), onSlow)) reached++;
      }
    }
    return reached;
  };

  const sink: TransportSink = {
    wants: (channel) => byChannel.has(channel) || byTable.has(channel),
    deliver: (message, readable) =>
      message.channelName.startsWith(SUPABASE_CHANNEL_PREFIX)
        ? Promise.resolve(deliverBroadcast(message))
        : deliverChange(message, readable),
    presence(event: PresenceEvent) {
      const joins = byChannel.get(event.channel);
      const meta = event.member.meta as PresenceMeta | undefined;
      if (!joins || !meta) return;
      const entry = metasOf(event.member.presenceId, meta);
      const diff = event.kind === 'join' ? { joins: entry, leaves: {} } : { joins: {}, leaves: entry };
      for (const joined of joins) {
        if (joined.rights.readPresence) send(joined.conn, pushOf(joined, 'presence_diff', diff), onSlow);
      }
    },
    rejoin: rejoinAll,
  };

  return {
    sink,
    add(joined: Joined) {
      add(byChannel, joined.channel, joined);
      for (const channel of joined.tableChannels) add(byTable, channel, joined);
    },
    remove(joined: Joined) {
      remove(byChannel, joined.channel, joined);
      for (const channel of joined.tableChannels) remove(byTable, channel, joined);
    },
  };
}
