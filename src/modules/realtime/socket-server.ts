// The realtime socket server: Socket.IO on the API's own HTTP server (path /socket.io/), the
// handshake tied to a principal, the subscribe/unsubscribe/publish events of the official
// client, presence, delivery of messages announced on the bus (platform/bus), closing the sockets of revoked
// sessions and of credentials that expired or were rotated out, capacity guards (socket caps,
// event and byte budgets: refusals are "busy", never "unauthorized"), and a stop that lets
// clients reconnect to another server.
import { randomUUID } from 'node:crypto';
import type { Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { type DefaultEventsMap, Server, type Socket } from 'socket.io';
import { guardOf, type RequestScope } from '../../core/db.js';
import { AppError } from '../../core/errors.js';
import { asPgError } from '../../core/pg-errors.js';
import type { Deps } from '../../deps.js';
import type { Principal } from '../../core/principal.js';
import { scopeOf } from '../../core/principal.js';
import { insertMessage, visibleChannel } from './access.repo.js';
import { createDelivery, roomOf } from './delivery.js';
import { MESSAGE_CHANNEL } from './delivery.repo.js';
import { createMemberMask } from './presence-privacy.js';
import { announceMessages, MESSAGE_TOPIC, PRESENCE_TOPIC } from './bus-topics.js';
import { createPresenceRelay, maskedRoomOf } from './presence-relay.js';
import { createPresence } from './presence.service.js';
import { measurePayload, refusePublish } from './publish-rules.js';
import type { RealtimeRefusals } from './realtime-refusals.js';
import { createSocketAdmission, type SocketTicket } from './socket-admission.js';
import {
  BUSY,
  BUSY_HANDSHAKE,
  BYTES_LIMITED,
  clientIp,
  INTERNAL_SUBSCRIBE,
  isCapacityFailure,
  RATE_LIMITED,
  refusal,
  userOf,
} from './socket-replies.js';
import { authenticateHandshake, type CredentialResolver } from './socket-auth.js';
import { createEventBudget, type EventBudget } from './socket-event-budget.js';
import { registerEngine, SUPABASE_CHANNEL_PREFIX, type TransportSink } from './transports.js';

/** Longest channel name accepted (presence NOTIFY payloads must stay small). */
const MAX_CHANNEL_LENGTH = 255;
/** How long a stop waits for clients to close their WebSockets before cutting them. */
const CLOSE_WAIT_MS = 1_000;

interface SocketData {
  principal: Principal;
  scope: RequestScope;
  member: { type: 'user' | 'anonymous'; presenceId: string };
  /** Channels this socket subscribed to: publishing needs one. */
  channels: Set<string>;
  /** Subscribe and publish events it may still send. */
  budget: EventBudget;
  /** Payload bytes it may still publish. */
  bytes: EventBudget;
  /** The credential of the handshake, checked again while the socket lives. */
  credential: string;
  /** Its place among the sockets of its IP and user, and their shared event budgets. */
  ticket: SocketTicket;
}

type RealtimeSocket = Socket<DefaultEventsMap, DefaultEventsMap, DefaultEventsMap, SocketData>;

export interface SocketServerOptions {
  resolveCredential: CredentialResolver;
  /** NOTIFY channel on which ended sessions are announced. */
  sessionRevokedChannel: string;
  refusals: RealtimeRefusals;
  onError(err: unknown, what: string): void;
  /** A socket was cut because it did not read its messages. */
  onSlowClient(socketId: string): void;
}

const sessionRoom = (sessionId: string) => `session:${sessionId}`;

const memberOf = (principal: Principal, socketId: string): SocketData['member'] =>
  principal.kind === 'user'
    ? { type: 'user', presenceId: principal.userId }
    : principal.kind === 'admin' && principal.via === 'token'
      ? { type: 'user', presenceId: principal.subject }
      : { type: 'anonymous', presenceId: socketId };

/** Socket.IO's own frame bound stays at its default (1 MB) unless the payload limit needs more. */
const DEFAULT_MAX_FRAME_BYTES = 1_000_000;
const FRAME_OVERHEAD_BYTES = 64 * 1024;

export async function startSocketServer(
  deps: Pick<Deps, 'sql' | 'clock' | 'config' | 'replicas' | 'bus'>,
  httpServer: HttpServer,
  options: SocketServerOptions,
) {
  const { config } = deps;
  const io = new Server(httpServer, {
    transports: ['websocket'],
    serveClient: false,
    cors: { origin: true, credentials: true },
    maxHttpBufferSize: Math.max(DEFAULT_MAX_FRAME_BYTES, config.realtimeMaxPayloadBytes + FRAME_OVERHEAD_BYTES),
  });
  const { refusals } = options;
  const admission = createSocketAdmission(
    deps.clock,
    {
      maxSocketsPerIp: config.realtimeMaxSocketsPerIp,
      maxSocketsPerUser: config.realtimeMaxSocketsPerUser,
      ipEventsPerSecond: config.realtimeIpEventsPerSecond,
      serverEventsPerSecond: config.realtimeServerEventsPerSecond,
    },
    refusals,
  );
  const pool = guardOf(deps.sql);
  const mask = createMemberMask();
  let closing = false;
  /** After being taken for dead, this server's sockets join their channels again (joins announced). */
  const sinks: TransportSink[] = [];
  const rejoinAll = async () => {
    if (closing) return;
    for (const [, socket] of io.of('/').sockets as Map<string, RealtimeSocket>) {
      for (const channel of socket.data.channels) await presence.join(channel, socket.id, socket.data.member);
    }
    for (const sink of sinks) await sink.rejoin();
  };
  const presence = createPresence(deps, randomUUID(), rejoinAll);
  const relay = createPresenceRelay({ io, sinks, mask, clock: deps.clock, members: presence.members });
  /** On a broker, this server publishes its sockets' messages after their commit (no NOTIFY). */
  const collect = deps.bus.engine !== 'postgres';
  const delivery = createDelivery(
    deps,
    io,
    (err) => options.onError(err, 'delivering a realtime message'),
    options.onSlowClient,
    sinks,
  );
  registerEngine(httpServer, {
    deps,
    presence,
    admission,
    refusals,
    resolveCredential: options.resolveCredential,
    closing: () => closing,
    attach: (sink) => sinks.push(sink),
  });

  // The raw connections behind the WebSockets, to cut those that do not close in time on stop.
  const upgraded = new Set<Duplex>();
  const onUpgrade = (_req: unknown, socket: Duplex) => {
    upgraded.add(socket);
    socket.once('close', () => upgraded.delete(socket));
  };
  httpServer.on('upgrade', onUpgrade);

  io.use(async (socket, next) => {
    if (closing) return next(new Error('Server is shutting down'));
    const result = await authenticateHandshake(socket.handshake.auth, options.resolveCredential);
    if (!result.ok) return next(new Error(result.message));
    if (closing) return next(new Error('Server is shutting down'));
    const ticket = admission.admit(clientIp(socket, config.trustProxy), userOf(result.principal));
    if ('refused' in ticket) {
      const busy = new Error(BUSY_HANDSHAKE[ticket.refused] ?? BUSY.message) as Error & { data?: unknown };
      busy.data = { code: BUSY.code, retryable: true };
      return next(busy);
    }
    const data = socket.data as SocketData;
    data.principal = result.principal;
    data.credential = result.credential;
    data.ticket = ticket;
    data.scope = scopeOf(result.principal, config.statementTimeouts);
    data.member = memberOf(result.principal, socket.id);
    data.channels = new Set();
    data.budget = createEventBudget(deps.clock, config.realtimeSocketEventsPerSecond);
    data.bytes = createEventBudget(deps.clock, config.realtimeSocketBytesPerSecond);
    // A handshake that never becomes a connection (or a socket that closes) gives its place back.
    socket.conn.once('close', () => ticket.release());
    next();
  });

  /**
   * The socket's credential checked again at the clock's time (cached verifications: cheap). When
   * it expired, was rotated out or its signing key retired, the client is told why and the socket
   * is closed by the server (the client reconnects only with a new handshake). True when it closed.
   */
  const closeIfCredentialEnded = (socket: RealtimeSocket): boolean => {
    const close = (err: unknown): true => {
      const message = err instanceof AppError ? err.message : 'The credential of this connection is no longer valid.';
      socket.emit(
        'realtime:error',
        refusal(null, 'REALTIME_CREDENTIAL_EXPIRED', `${message} Reconnect with a valid credential.`),
      );
      socket.disconnect(true);
      return true;
    };
    try {
      const principal = options.resolveCredential(socket.data.credential);
      // An admin session not confirmed yet is looked up: the socket closes when that refuses.
      if (principal instanceof Promise) principal.catch(close);
      return false;
    } catch (err) {
      return close(err);
    }
  };
  const checkAllCredentials = () => {
    for (const [, socket] of io.of('/').sockets as Map<string, RealtimeSocket>) closeIfCredentialEnded(socket);
  };

  /**
   * The budgets an event (carrying `bytes` of payload) spends: the socket's events and bytes, its
   * IP's and the server's events, and a free database pool. The refusal the client sees when one is spent.
   */
  const spendEvent = (socket: RealtimeSocket, bytes = 0): { code: string; message: string } | null => {
    if (!socket.data.budget.take()) {
      refusals.count('socket_events');
      return RATE_LIMITED;
    }
    if (bytes > 0 && !socket.data.bytes.take(bytes)) {
      refusals.count('socket_bytes');
      return BYTES_LIMITED;
    }
    if (socket.data.ticket.takeEvent()) return BUSY;
    if (pool.full()) {
      refusals.count('database_busy');
      return BUSY;
    }
    return null;
  };

  const subscribe = async (socket: RealtimeSocket, channel: unknown) => {
    const denied = {
      ok: false,
      channel,
      error: { code: 'REALTIME_UNAUTHORIZED', message: 'Not authorized to subscribe to this channel' },
    };
    if (closeIfCredentialEnded(socket)) return denied;
    if (typeof channel !== 'string' || channel.length === 0 || channel.length > MAX_CHANNEL_LENGTH) return denied;
    // Supabase topics are judged by their own rules (private channels): Phoenix sockets only.
    if (channel.startsWith(SUPABASE_CHANNEL_PREFIX)) return denied;
    const spent = spendEvent(socket);
    if (spent) return { ok: false, channel, error: spent };
    let allowed: { presenceUserIds: boolean } | null;
    try {
      allowed = await visibleChannel(deps.sql, socket.data.scope, channel);
    } catch (err) {
      if (!isCapacityFailure(err)) options.onError(err, 'checking a subscription');
      else refusals.count('database_busy');
      return { ok: false, channel, error: isCapacityFailure(err) ? BUSY : INTERNAL_SUBSCRIBE };
    }
    if (!allowed) return denied;
    if (socket.disconnected) return denied;
    // Anon-key sockets see signed-in members under pseudonyms unless the channel opts in.
    const masked = socket.data.principal.kind === 'anon' && !allowed.presenceUserIds;
    try {
      await presence.fresh();
      socket.join(masked ? [roomOf(channel), maskedRoomOf(channel)] : roomOf(channel));
      socket.data.channels.add(channel);
      const { members } = await presence.join(channel, socket.id, socket.data.member);
      relay.joined(channel, members);
      return { ok: true, channel, presence: { members: masked ? members.map((m) => mask(channel, m)) : members } };
    } catch (err) {
      if (isCapacityFailure(err)) refusals.count('database_busy');
      else options.onError(err, 'subscribing a socket');
      socket.leave(roomOf(channel));
      socket.leave(maskedRoomOf(channel));
      socket.data.channels.delete(channel);
      return { ok: false, channel, error: isCapacityFailure(err) ? BUSY : INTERNAL_SUBSCRIBE };
    }
  };

  const leave = (socket: RealtimeSocket, channel: string, except: string | null) =>
    presence
      .leave(channel, socket.id, socket.data.member.presenceId, except)
      .catch((err) => options.onError(err, 'removing a presence member'));

  const publish = async (socket: RealtimeSocket, body: { channel?: unknown; event?: unknown; payload?: unknown }) => {
    if (closeIfCredentialEnded(socket)) return;
    const channel = body.channel;
    const refuse = (code: string, message: string) => socket.emit('realtime:error', refusal(channel, code, message));
    if (typeof channel !== 'string' || !socket.data.channels.has(channel)) {
      refuse('REALTIME_NOT_SUBSCRIBED', 'Must subscribe to channel before publishing messages');
      return;
    }
    const forbidden = refusePublish(channel, body.event);
    if (forbidden) {
      refusals.count('reserved_event');
      refuse(forbidden.code, forbidden.message);
      return;
    }
    const measured = measurePayload(body.payload, config.realtimeMaxPayloadBytes);
    if (!measured.ok) {
      refusals.count('payload_too_large');
      refuse(measured.refusal.code, measured.refusal.message);
      return;
    }
    const spent = spendEvent(socket, measured.bytes);
    if (spent) {
      refuse(spent.code, spent.message);
      return;
    }
    const { principal, scope } = socket.data;
    try {
      const { inserted, outbox } = await insertMessage(
        deps.sql,
        scope,
        {
          channel,
          event: body.event,
          payloadJson: measured.json,
          senderType: principal.kind === 'admin' ? 'system' : 'user',
          senderId: principal.kind === 'user' ? principal.userId : null,
        },
        collect,
      );
      // Stored: a failed announcement is read back by the servers when their bus reconnects.
      if (outbox.length > 0) {
        await announceMessages(deps.bus, outbox).catch((err) => options.onError(err, 'announcing a realtime message'));
      }
      if (inserted) return;
    } catch (err) {
      if (isCapacityFailure(err)) {
        refusals.count('database_busy');
        refuse(BUSY.code, BUSY.message);
        return;
      }
      if (!asPgError(err)) {
        options.onError(err, 'publishing a realtime message');
        refuse('INTERNAL_ERROR', 'Failed to publish message');
        return;
      }
    }
    socket.emit(
      'realtime:error',
      refusal(channel, 'REALTIME_UNAUTHORIZED', 'Not authorized to publish to this channel'),
    );
  };

  io.on('connection', (raw) => {
    const socket = raw as RealtimeSocket;
    const { principal } = socket.data;
    if ('sessionId' in principal) socket.join(sessionRoom(principal.sessionId));
    socket.on('realtime:subscribe', async (body: { channel?: unknown } | undefined, ack: unknown) => {
      const reply = await subscribe(socket, body?.channel);
      if (typeof ack === 'function') ack(reply);
    });
    socket.on('realtime:unsubscribe', (body: { channel?: unknown } | undefined) => {
      const channel = body?.channel;
      if (typeof channel !== 'string' || !socket.data.channels.has(channel)) return;
      socket.data.channels.delete(channel);
      socket.leave(roomOf(channel));
      socket.leave(maskedRoomOf(channel));
      void leave(socket, channel, socket.id);
    });
    socket.on('realtime:publish', (body: Record<string, unknown> | undefined) => void publish(socket, body ?? {}));
    socket.on('disconnect', () => {
      if (closing) return; // the stop retires this server's members at once
      for (const channel of socket.data.channels) void leave(socket, channel, null);
    });
  });

  const beat = () => presence.beat().catch((err) => options.onError(err, 'the realtime heartbeat'));

  const readBack = () => void delivery.listening().catch((err) => options.onError(err, 'reading back missed messages'));
  let presenceConnected = false;
  const subscriptions = await Promise.all([
    deps.bus.subscribe(MESSAGE_TOPIC, (text) => delivery.announce(text), readBack),
    // On a broker, messages inserted outside a server (watched tables' triggers, SQL) are still
    // announced by NOTIFY: heard here too (an id delivered twice is delivered once).
    ...(collect ? [deps.sql.listen(MESSAGE_CHANNEL, (text) => delivery.announce(text), readBack)] : []),
    deps.bus.subscribe(
      PRESENCE_TOPIC,
      (text) => {
        try {
          relay.relay(text);
        } catch (err) {
          options.onError(err, 'relaying a presence event');
        }
      },
      () => {
        // After a reconnection, events may have been missed: tell the sockets the difference.
        if (presenceConnected) void relay.resync().catch((err) => options.onError(err, 'resynchronising presence'));
        presenceConnected = true;
      },
    ),
    deps.sql.listen(options.sessionRevokedChannel, (sessionId) =>
      io.local.in(sessionRoom(sessionId)).disconnectSockets(true),
    ),
  ]);
  await presence.beat();
  const timer = setInterval(() => void beat(), config.realtimeHeartbeatMs);
  timer.unref();
  // One path for every way a credential ends without a signal to this socket (a token's expiry, a
  // rotated key's grace period, a retired signing key, on any server): each socket's credential
  // is verified again on this beat, at the injected clock's time, and on each event it sends.
  const credentialTimer = setInterval(checkAllCredentials, config.realtimeCredentialCheckMs);
  credentialTimer.unref();

  return {
    io,
    /**
     * Stop: tells every client, closes the WebSockets without a Socket.IO disconnect (so clients
     * reconnect, to another server), cuts those not closed within a second, and retires this
     * server's presence members on every server.
     */
    async close(): Promise<void> {
      if (closing) return;
      closing = true;
      clearInterval(timer);
      clearInterval(credentialTimer);
      io.local.emit('notification', {
        level: 'warning',
        title: 'Server Shutdown',
        message: 'Server is shutting down',
        meta: { messageId: randomUUID(), senderType: 'system', timestamp: deps.clock.now().toISOString() },
      });
      io.engine.close();
      if (upgraded.size > 0) {
        await new Promise<void>((resolve) => {
          const cut = setTimeout(() => {
            for (const socket of upgraded) socket.destroy();
            resolve();
          }, CLOSE_WAIT_MS);
          const check = () => {
            if (upgraded.size > 0) return;
            clearTimeout(cut);
            resolve();
          };
          for (const socket of upgraded) socket.once('close', () => setImmediate(check));
        });
      }
      httpServer.off('upgrade', onUpgrade);
      await presence.retire().catch((err) => options.onError(err, 'retiring this server from presence'));
      await Promise.all(subscriptions.map((s) => ('unlisten' in s ? s.unlisten() : s.close()).catch(() => {})));
      await delivery.flush();
    },
  };
}
