// The realtime socket server: Socket.IO on the API's own HTTP server (path /socket.io/), the
// handshake tied to a principal, the subscribe/unsubscribe/publish events of the official
// client, presence, delivery of NOTIFY-announced messages, closing the sockets of revoked
// sessions, and a stop that lets clients reconnect to another server.
import { randomUUID } from 'node:crypto';
import type { Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { type DefaultEventsMap, Server, type Socket } from 'socket.io';
import { asPgError } from '../../core/pg-errors.js';
import type { RequestScope } from '../../core/db.js';
import type { Deps } from '../../deps.js';
import type { Principal } from '../../http/principal.js';
import { scopeOf } from '../../http/request-scope.js';
import { channelVisible, insertMessage } from './access.repo.js';
import { createDelivery, roomOf } from './delivery.js';
import { MESSAGE_CHANNEL } from './delivery.repo.js';
import { PRESENCE_CHANNEL } from './presence.repo.js';
import { createPresence, type PresenceEvent } from './presence.service.js';
import { authenticateHandshake, type CredentialResolver } from './socket-auth.js';
import { createEventBudget, type EventBudget } from './socket-event-budget.js';

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
}

type RealtimeSocket = Socket<DefaultEventsMap, DefaultEventsMap, DefaultEventsMap, SocketData>;

export interface SocketServerOptions {
  resolveCredential: CredentialResolver;
  /** NOTIFY channel on which ended sessions are announced. */
  sessionRevokedChannel: string;
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

const refusal = (channel: unknown, code: string, message: string) => ({ channel, code, message });
const RATE_LIMITED = {
  code: 'REALTIME_RATE_LIMITED',
  message: 'Too many realtime events from this connection; slow down and retry in a second',
};

export async function startSocketServer(
  deps: Pick<Deps, 'sql' | 'clock' | 'config'>,
  httpServer: HttpServer,
  options: SocketServerOptions,
) {
  const io = new Server(httpServer, {
    transports: ['websocket'],
    serveClient: false,
    cors: { origin: true, credentials: true },
  });
  let closing = false;
  /** After being taken for dead, this server's sockets join their channels again (joins announced). */
  const rejoinAll = async () => {
    if (closing) return;
    for (const [, socket] of io.of('/').sockets as Map<string, RealtimeSocket>) {
      for (const channel of socket.data.channels) await presence.join(channel, socket.id, socket.data.member);
    }
  };
  const presence = createPresence(deps, randomUUID(), rejoinAll);
  const delivery = createDelivery(
    deps,
    io,
    (err) => options.onError(err, 'delivering a realtime message'),
    options.onSlowClient,
  );

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
    const data = socket.data as SocketData;
    data.principal = result.principal;
    data.scope = scopeOf(result.principal, deps.config.statementTimeouts);
    data.member = memberOf(result.principal, socket.id);
    data.channels = new Set();
    data.budget = createEventBudget(deps.clock, deps.config.realtimeSocketEventsPerSecond);
    next();
  });

  const subscribe = async (socket: RealtimeSocket, channel: unknown) => {
    const denied = {
      ok: false,
      channel,
      error: { code: 'REALTIME_UNAUTHORIZED', message: 'Not authorized to subscribe to this channel' },
    };
    if (typeof channel !== 'string' || channel.length === 0 || channel.length > MAX_CHANNEL_LENGTH) return denied;
    if (!socket.data.budget.take()) return { ok: false, channel, error: RATE_LIMITED };
    const allowed = await channelVisible(deps.sql, socket.data.scope, channel).catch(() => false);
    if (!allowed) return denied;
    if (socket.disconnected) return denied;
    try {
      await presence.fresh();
      socket.join(roomOf(channel));
      socket.data.channels.add(channel);
      const { members } = await presence.join(channel, socket.id, socket.data.member);
      return { ok: true, channel, presence: { members } };
    } catch (err) {
      options.onError(err, 'subscribing a socket');
      socket.leave(roomOf(channel));
      socket.data.channels.delete(channel);
      return {
        ok: false,
        channel,
        error: { code: 'INTERNAL_ERROR', message: 'Failed to subscribe to channel' },
      };
    }
  };

  const leave = (socket: RealtimeSocket, channel: string, except: string | null) =>
    presence
      .leave(channel, socket.id, socket.data.member.presenceId, except)
      .catch((err) => options.onError(err, 'removing a presence member'));

  const publish = async (socket: RealtimeSocket, body: { channel?: unknown; event?: unknown; payload?: unknown }) => {
    const channel = body.channel;
    if (typeof channel !== 'string' || !socket.data.channels.has(channel)) {
      socket.emit(
        'realtime:error',
        refusal(channel, 'REALTIME_NOT_SUBSCRIBED', 'Must subscribe to channel before publishing messages'),
      );
      return;
    }
    if (!socket.data.budget.take()) {
      socket.emit('realtime:error', refusal(channel, RATE_LIMITED.code, RATE_LIMITED.message));
      return;
    }
    const { principal, scope } = socket.data;
    try {
      const inserted = await insertMessage(deps.sql, scope, {
        channel,
        event: body.event,
        payloadJson: JSON.stringify(body.payload),
        senderType: principal.kind === 'admin' ? 'system' : 'user',
        senderId: principal.kind === 'user' ? principal.userId : null,
      });
      if (inserted) return;
    } catch (err) {
      if (!asPgError(err)) {
        options.onError(err, 'publishing a realtime message');
        socket.emit('realtime:error', refusal(channel, 'INTERNAL_ERROR', 'Failed to publish message'));
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
      void leave(socket, channel, socket.id);
    });
    socket.on('realtime:publish', (body: Record<string, unknown> | undefined) => void publish(socket, body ?? {}));
    socket.on('disconnect', () => {
      if (closing) return; // the stop retires this server's members at once
      for (const channel of socket.data.channels) void leave(socket, channel, null);
    });
  });

  const onPresence = (text: string) => {
    const event = JSON.parse(text) as PresenceEvent;
    const target = io.local.to(roomOf(event.channel));
    (event.except ? target.except(event.except) : target).emit(`presence:${event.kind}`, {
      member: event.member,
      meta: { channel: event.channel, messageId: event.messageId, senderType: 'system', timestamp: event.timestamp },
    });
  };

  const beat = () => presence.beat().catch((err) => options.onError(err, 'the realtime heartbeat'));

  const subscriptions = await Promise.all([
    deps.sql.listen(
      MESSAGE_CHANNEL,
      (id) => delivery.announce(id),
      () => void delivery.listening().catch((err) => options.onError(err, 'reading back missed messages')),
    ),
    deps.sql.listen(PRESENCE_CHANNEL, (text) => {
      try {
        onPresence(text);
      } catch (err) {
        options.onError(err, 'relaying a presence event');
      }
    }),
    deps.sql.listen(options.sessionRevokedChannel, (sessionId) =>
      io.local.in(sessionRoom(sessionId)).disconnectSockets(true),
    ),
  ]);
  await presence.beat();
  const timer = setInterval(() => void beat(), deps.config.realtimeHeartbeatMs);
  timer.unref();

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
      await Promise.all(subscriptions.map((s) => s.unlisten().catch(() => {})));
      await delivery.flush();
    },
  };
}

export type SocketServer = Awaited<ReturnType<typeof startSocketServer>>;
