// The channel events of a Phoenix connection: phx_join (config: broadcast self/ack, presence key,
// postgres_changes bindings, private), phx_leave, broadcast pushes (stored as realtime.messages
// rows, so the shared delivery fans them out on every server), presence track/untrack (Plinth's
// presence service, so members are the same on every server), each answered as Supabase does.
import { randomUUID } from 'node:crypto';
import { asPgError } from '../../../core/pg-errors.js';
import {
  announceMessages,
  isCapacityFailure,
  measurePayload,
  readableColumns,
  type RealtimeEngine,
} from '../../realtime/index.js';
import { type Connection, type Joined, pushOf, replyOf, send } from './phoenix-connection.js';
import type { PhoenixMessage } from './phoenix-frames.js';
import { metasOf, type PresenceMeta } from './phoenix-hub.js';
import { echoBinding, parseBindings, tableChannelOf } from './postgres-bindings.js';
import { insertBroadcasts, tableStatus, topicAccess, watchTable } from './realtime.repo.js';
import { channelOf, type StoredBroadcast, topicOf } from './topics.js';

/** A tracked presence payload stays small: every server relays it in a NOTIFY (8 KB at most). */
const MAX_PRESENCE_BYTES = 2_000;
const ALL_RIGHTS = { readBroadcast: true, readPresence: true, writePresence: true };

interface ChannelContext {
  engine: RealtimeEngine;
  hub: { add(joined: Joined): void; remove(joined: Joined): void };
  onSlow(conn: Connection): void;
  onError(err: unknown, what: string): void;
  /** Applies a credential a join carries; a refusal's reason, or null when it took. */
  applyCredential(conn: Connection, credential: string): Promise<string | null>;
}

const object = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

export function createChannelHandlers(ctx: ChannelContext) {
  const { engine } = ctx;
  const { sql, config, bus } = engine.deps;
  let nextBindingId = 1;
  const reply = (conn: Connection, msg: PhoenixMessage, status: 'ok' | 'error', response: unknown) =>
    send(conn, replyOf(msg, status, response), ctx.onSlow);
  const refuse = (conn: Connection, msg: PhoenixMessage, reason: string) => reply(conn, msg, 'error', { reason });
  const failure = (err: unknown, what: string) => {
    if (isCapacityFailure(err)) {
      engine.refusals.count('database_busy');
      return 'The realtime server is busy; retry in a moment';
    }
    ctx.onError(err, what);
    return `Failed ${what}`;
  };

  const leaveJoined = async (joined: Joined) => {
    ctx.hub.remove(joined);
    joined.conn.joined.delete(joined.wireTopic);
    if (joined.tracked) {
      const tracked = joined.tracked;
      joined.tracked = null;
      await engine.presence
        .leave(joined.channel, joined.memberSocketId, tracked, null)
        .catch((err) => ctx.onError(err, 'removing a presence member'));
    }
  };

  /** The bindings' tables: opted in by the publication (watched from now on) or already watched. */
  const prepareTables = async (joined: Joined): Promise<string | null> => {
    const unavailable: string[] = [];
    const readable = new Map<string, Set<string>>();
    for (const binding of joined.bindings) {
      const status = await tableStatus(sql, binding.schema, binding.table);
      if (!status.exists || (!status.watched && !status.published)) {
        unavailable.push(`${binding.schema}.${binding.table}`);
        continue;
      }
      if (!status.watched) await watchTable(sql, binding.schema, binding.table);
      const name = `${binding.schema}.${binding.table}`;
      if (binding.filter) {
        // A filter on a column the subscriber may not read would tell it that column's values.
        if (!readable.has(name)) {
          const [row] = await readableColumns(
            sql,
            `"${binding.schema.replace(/"/g, '""')}"."${binding.table.replace(/"/g, '""')}"`,
            [joined.conn.scope.role],
          );
          readable.set(name, new Set(row?.columns ?? []));
        }
        if (!readable.get(name)?.has(binding.filter.column)) {
          return `Not allowed to filter ${name} on column ${binding.filter.column}`;
        }
      }
      const channel = tableChannelOf(binding.schema, binding.table);
      if (!joined.tableChannels.includes(channel)) joined.tableChannels.push(channel);
    }
    return unavailable.length > 0 ? `unavailable:${unavailable.join(', ')}` : null;
  };

  const join = async (conn: Connection, msg: PhoenixMessage) => {
    const topic = topicOf(msg.topic);
    if (topic === null) return refuse(conn, msg, 'Invalid topic: expected realtime:<name>');
    const payload = object(msg.payload);
    if (typeof payload.access_token === 'string' && payload.access_token !== conn.credential) {
      const refused = await ctx.applyCredential(conn, payload.access_token);
      if (refused) return refuse(conn, msg, refused);
    }
    const cfg = object(payload.config);
    const isPrivate = cfg.private === true;
    const bindings = parseBindings(cfg.postgres_changes, nextBindingId);
    if (typeof bindings === 'string') return refuse(conn, msg, bindings);
    nextBindingId += bindings.length;
    const previous = conn.joined.get(msg.topic);
    if (previous) await leaveJoined(previous);
    const presenceKey = object(cfg.presence).key;
    const joined: Joined = {
      conn,
      wireTopic: msg.topic,
      topic,
      channel: channelOf(topic, isPrivate),
      joinRef: msg.joinRef,
      self: object(cfg.broadcast).self === true,
      ack: object(cfg.broadcast).ack === true,
      presenceKey: typeof presenceKey === 'string' && presenceKey !== '' ? presenceKey : randomUUID(),
      private: isPrivate,
      rights: ALL_RIGHTS,
      bindings,
      tableChannels: [],
      tracked: null,
      trackedMeta: null,
      memberSocketId: `phx:${conn.id}:${msg.topic}`,
      senderId: randomUUID(),
    };
    let unavailable: string | null = null;
    try {
      if (isPrivate) {
        const access = await topicAccess(sql, conn.scope, joined.channel, topic);
        if (!access.rls) {
          return refuse(
            conn,
            msg,
            'Private channels need row level security on realtime.messages (enable it, then add policies)',
          );
        }
        if (!access.readBroadcast && !access.readPresence) {
          return refuse(
            conn,
            msg,
            `Unauthorized: You do not have permissions to read from this Channel topic: ${topic}`,
          );
        }
        joined.rights = access;
      }
      const problem = await prepareTables(joined);
      if (problem && !problem.startsWith('unavailable:')) return refuse(conn, msg, problem);
      unavailable = problem ? problem.slice('unavailable:'.length) : null;
    } catch (err) {
      return refuse(conn, msg, failure(err, 'to join the channel'));
    }
    if (conn.closed) return;
    conn.joined.set(msg.topic, joined);
    ctx.hub.add(joined);
    reply(conn, msg, 'ok', { postgres_changes: bindings.map(echoBinding) });
    if (joined.rights.readPresence) {
      try {
        const state: Record<string, { metas: unknown[] }> = {};
        for (const member of await engine.presence.members(joined.channel)) {
          const meta = member.meta as PresenceMeta | undefined;
          if (!meta) continue;
          const entry = metasOf(member.presenceId, meta)[meta.key];
          if (entry) state[meta.key] = { metas: [...(state[meta.key]?.metas ?? []), ...entry.metas] };
        }
        send(conn, pushOf(joined, 'presence_state', state), ctx.onSlow);
      } catch (err) {
        failure(err, 'reading presence');
      }
    }
    if (bindings.length > 0) {
      const status = unavailable
        ? {
            extension: 'postgres_changes',
            status: 'error',
            message: `Unable to subscribe to changes of ${unavailable}: add the table to the supabase_realtime publication`,
            channel: topic,
          }
        : { extension: 'postgres_changes', status: 'ok', message: 'Subscribed to PostgreSQL', channel: topic };
      send(conn, pushOf(joined, 'system', status), ctx.onSlow);
    }
  };

  const leave = async (conn: Connection, msg: PhoenixMessage) => {
    const joined = conn.joined.get(msg.topic);
    if (joined) await leaveJoined(joined);
    reply(conn, msg, 'ok', {});
    send(conn, { joinRef: msg.joinRef, ref: msg.ref, topic: msg.topic, event: 'phx_close', payload: {} }, ctx.onSlow);
  };

  const broadcast = async (conn: Connection, msg: PhoenixMessage, bytesSpent: (bytes: number) => string | null) => {
    const joined = conn.joined.get(msg.topic);
    if (!joined) return refuse(conn, msg, 'Join the channel before broadcasting');
    const body = object(msg.payload);
    if (typeof body.event !== 'string' || body.event.length === 0 || body.event.length > 255) {
      return refuse(conn, msg, 'A broadcast needs an event name (at most 255 characters)');
    }
    const stored: StoredBroadcast = { event: body.event, payload: body.payload ?? {}, sender: joined.senderId };
    const measured = measurePayload(stored, config.realtimeMaxPayloadBytes);
    if (!measured.ok) {
      engine.refusals.count('payload_too_large');
      return refuse(conn, msg, measured.refusal.message);
    }
    const spent = bytesSpent(measured.bytes);
    if (spent) return refuse(conn, msg, spent);
    const { principal } = conn;
    try {
      // A public topic takes any key holder's broadcast (as on Supabase); a private one asks the
      // INSERT policies of realtime.messages, under the sender's role and claims.
      const stored = await insertBroadcasts(
        sql,
        joined.private ? conn.scope : null,
        [
          {
            channel: joined.channel,
            topic: joined.topic,
            event: body.event,
            payloadJson: measured.json ?? '{}',
            private: joined.private,
            senderType: principal.kind === 'admin' ? 'system' : 'user',
            senderId: principal.kind === 'user' ? principal.userId : null,
          },
        ],
        bus.engine !== 'postgres',
      );
      // Stored: a failed announcement is read back by the servers when their bus reconnects.
      await announceMessages(bus, stored).catch((err) => ctx.onError(err, 'announcing a broadcast'));
    } catch (err) {
      if (asPgError(err)?.code === '42501') {
        return refuse(
          conn,
          msg,
          `Unauthorized: You do not have permissions to write to this Channel topic: ${joined.topic}`,
        );
      }
      return refuse(conn, msg, failure(err, 'to broadcast'));
    }
    if (joined.ack) reply(conn, msg, 'ok', {});
  };

  const presence = async (conn: Connection, msg: PhoenixMessage) => {
    const joined = conn.joined.get(msg.topic);
    if (!joined) return refuse(conn, msg, 'Join the channel before tracking presence');
    const body = object(msg.payload);
    try {
      if (body.event === 'untrack') {
        if (joined.tracked) {
          const tracked = joined.tracked;
          joined.tracked = null;
          await engine.presence.leave(joined.channel, joined.memberSocketId, tracked, null);
        }
        return reply(conn, msg, 'ok', {});
      }
      if (body.event !== 'track') return refuse(conn, msg, 'Presence events are track and untrack');
      if (!joined.rights.writePresence) {
        return refuse(
          conn,
          msg,
          `Unauthorized: You do not have permissions to track presence on this Channel topic: ${joined.topic}`,
        );
      }
      const payload = object(body.payload);
      const measured = measurePayload(payload, MAX_PRESENCE_BYTES);
      if (!measured.ok) return refuse(conn, msg, `A presence payload is at most ${MAX_PRESENCE_BYTES} bytes`);
      if (joined.tracked) {
        const tracked = joined.tracked;
        joined.tracked = null;
        await engine.presence.leave(joined.channel, joined.memberSocketId, tracked, null);
      }
      const ref = randomUUID();
      await engine.presence.fresh();
      const meta: PresenceMeta = { key: joined.presenceKey, payload };
      const type = conn.principal.kind === 'user' ? 'user' : 'anonymous';
      await engine.presence.join(joined.channel, joined.memberSocketId, { type, presenceId: ref, meta });
      if (!conn.joined.has(joined.wireTopic)) {
        await engine.presence.leave(joined.channel, joined.memberSocketId, ref, null); // left meanwhile
        return;
      }
      joined.tracked = ref;
      joined.trackedMeta = meta;
      reply(conn, msg, 'ok', {});
    } catch (err) {
      refuse(conn, msg, failure(err, 'to update presence'));
    }
  };

  return { join, leave, broadcast, presence, leaveJoined };
}
