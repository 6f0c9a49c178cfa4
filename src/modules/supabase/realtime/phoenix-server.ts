// Supabase Realtime's WebSocket at /realtime/v1/websocket (Phoenix channels, vsn 1.0.0 and 2.0.0)
// on the API's own HTTP server, beside Socket.IO and on its engine: the upgrade (apikey, vsn,
// socket caps), heartbeats, the connection's credential (checked again on every event and on the
// engine's credential beat, closed as the Socket.IO side closes when it ended), event and byte
// budgets, and a stop that closes every socket.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { guardOf } from '../../../core/db.js';
import { AppError } from '../../../core/errors.js';
import { type Principal, scopeOf } from '../../../core/principal.js';
import {
  BUSY,
  BYTES_LIMITED,
  createEventBudget,
  RATE_LIMITED,
  type RealtimeEngine,
  userOf,
} from '../../realtime/index.js';
import { type Connection, replyOf, send } from './phoenix-connection.js';
import { createChannelHandlers } from './phoenix-channels.js';
import { decodeBinary, decodeText, type PhoenixMessage, type Vsn } from './phoenix-frames.js';
import { createHub } from './phoenix-hub.js';

export const WEBSOCKET_PATHS = new Set(['/realtime/v1/websocket', '/realtime/v1/websocket/']);
const DEFAULT_MAX_FRAME_BYTES = 1_000_000;
const FRAME_OVERHEAD_BYTES = 64 * 1024;

export interface PhoenixServerOptions {
  onError(err: unknown, what: string): void;
  onSlowClient(id: string): void;
}

function rejectUpgrade(socket: Duplex, status: number, text: string, message: string) {
  const body = JSON.stringify({ error: text, message });
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

function clientIp(req: IncomingMessage, trustProxy: boolean): string {
  const forwarded = req.headers['x-forwarded-for'];
  const first = typeof forwarded === 'string' ? forwarded.split(',')[0]?.trim() : undefined;
  return trustProxy && first ? first : (req.socket.remoteAddress ?? '');
}

export function startPhoenixServer(engine: RealtimeEngine, httpServer: HttpServer, options: PhoenixServerOptions) {
  const { deps } = engine;
  const { config } = deps;
  const pool = guardOf(deps.sql);
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: Math.max(DEFAULT_MAX_FRAME_BYTES, config.realtimeMaxPayloadBytes + FRAME_OVERHEAD_BYTES),
  });
  const connections = new Set<Connection>();
  const onSlow = (conn: Connection) => options.onSlowClient(conn.id);

  const resolve = async (credential: string): Promise<Principal> => engine.resolveCredential(credential);

  /** Closes a connection whose credential ended: each topic is told why and closed, then the socket. */
  const closeForCredential = (conn: Connection, err: unknown) => {
    if (conn.closed) return;
    const reason = err instanceof AppError ? err.message : 'The credential of this connection is no longer valid.';
    for (const joined of conn.joined.values()) {
      const base = { joinRef: joined.joinRef, ref: null, topic: joined.wireTopic };
      send(
        conn,
        {
          ...base,
          event: 'system',
          payload: { extension: 'system', status: 'error', message: reason, channel: joined.topic },
        },
        onSlow,
      );
      send(conn, { ...base, event: 'phx_close', payload: {} }, onSlow);
    }
    conn.ws.close(1008, 'credential ended');
  };

  /** True when the connection's credential ended (it is being closed). */
  const credentialEnded = (conn: Connection): boolean => {
    try {
      const principal = engine.resolveCredential(conn.credential);
      if (principal instanceof Promise) principal.catch((err) => closeForCredential(conn, err));
      return false;
    } catch (err) {
      closeForCredential(conn, err);
      return true;
    }
  };

  /** Takes a new credential (a join's or an `access_token` push's): null, or why it was refused. */
  const applyCredential = async (conn: Connection, credential: string): Promise<string | null> => {
    let principal: Principal;
    try {
      principal = await resolve(credential);
    } catch (err) {
      return err instanceof AppError ? err.message : 'Invalid token';
    }
    const user = userOf(principal);
    if (user !== userOf(conn.principal)) {
      // Its place among a user's sockets (the per-user cap) moves with the identity.
      conn.ticket.release();
      const ticket = engine.admission.admit(conn.ip, user);
      if ('refused' in ticket) {
        conn.ws.close(1013, 'busy');
        return 'Server busy: too many connections for this user; retry later';
      }
      conn.ticket = ticket;
    }
    conn.principal = principal;
    conn.credential = credential;
    conn.scope = scopeOf(principal, config.statementTimeouts);
    return null;
  };

  const hub = createHub(
    deps.sql,
    onSlow,
    async () => {
      for (const conn of connections) {
        for (const joined of conn.joined.values()) {
          if (!joined.tracked) continue;
          await engine.presence.join(joined.channel, joined.memberSocketId, {
            type: conn.principal.kind === 'user' ? 'user' : 'anonymous',
            presenceId: joined.tracked,
            meta: joined.trackedMeta,
          });
        }
      }
    },
    (work) => deps.replicas.read('primary', work),
  );
  engine.attach(hub.sink);
  const channels = createChannelHandlers({ engine, hub, onSlow, onError: options.onError, applyCredential });

  /** The budgets an event spends (the socket's, its address's and the server's, a free pool). */
  const spend = (conn: Connection, bytes = 0): string | null => {
    if (!conn.budget.take()) {
      engine.refusals.count('socket_events');
      return RATE_LIMITED.message;
    }
    if (bytes > 0 && !conn.bytes.take(bytes)) {
      engine.refusals.count('socket_bytes');
      return BYTES_LIMITED.message;
    }
    if (conn.ticket.takeEvent()) return BUSY.message;
    if (pool.full()) {
      engine.refusals.count('database_busy');
      return BUSY.message;
    }
    return null;
  };

  const handle = async (conn: Connection, msg: PhoenixMessage) => {
    if (msg.topic === 'phoenix' && msg.event === 'heartbeat') {
      send(conn, replyOf(msg, 'ok', {}), onSlow);
      return;
    }
    if (credentialEnded(conn)) return;
    const spent = spend(conn);
    if (spent) {
      send(conn, replyOf(msg, 'error', { reason: spent }), onSlow);
      return;
    }
    switch (msg.event) {
      case 'phx_join':
        return channels.join(conn, msg);
      case 'phx_leave':
        return channels.leave(conn, msg);
      case 'broadcast':
        return channels.broadcast(conn, msg, (bytes) => (conn.bytes.take(bytes) ? null : BYTES_LIMITED.message));
      case 'presence':
        return channels.presence(conn, msg);
      case 'access_token': {
        const token = (msg.payload as { access_token?: unknown }).access_token;
        if (typeof token !== 'string' || token === conn.credential) return;
        const refused = await applyCredential(conn, token);
        if (refused) closeForCredential(conn, new AppError('UNAUTHORIZED', refused));
        return;
      }
      default:
        if (msg.ref) send(conn, replyOf(msg, 'error', { reason: `Unknown event: ${msg.event}` }), onSlow);
    }
  };

  const onConnection = (
    ws: WebSocket,
    vsn: Vsn,
    ip: string,
    principal: Principal,
    credential: string,
    ticket: Connection['ticket'],
  ) => {
    const conn: Connection = {
      id: randomUUID(),
      ws,
      vsn,
      ip,
      principal,
      scope: scopeOf(principal, config.statementTimeouts),
      credential,
      ticket,
      budget: createEventBudget(deps.clock, config.realtimeSocketEventsPerSecond),
      bytes: createEventBudget(deps.clock, config.realtimeSocketBytesPerSecond),
      joined: new Map(),
      closed: false,
      queue: Promise.resolve(),
    };
    connections.add(conn);
    ws.on('message', (data, isBinary) => {
      const buffer = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
      let msg: PhoenixMessage | null;
      if (isBinary) {
        const decoded = decodeBinary(buffer);
        if (decoded && 'binaryPayload' in decoded) {
          send(
            conn,
            replyOf(decoded.message, 'error', { reason: 'Binary broadcast payloads are not supported; send JSON' }),
            onSlow,
          );
          return;
        }
        msg = decoded;
      } else {
        msg = decodeText(buffer.toString('utf8'));
      }
      if (!msg) return;
      const message = msg;
      conn.queue = conn.queue
        .then(async () => {
          await handle(conn, message);
        })
        .catch((err) => options.onError(err, 'handling a Phoenix frame'));
    });
    ws.on('close', () => {
      conn.closed = true;
      connections.delete(conn);
      ticket.release();
      conn.ticket.release();
      for (const joined of [...conn.joined.values()]) void channels.leaveJoined(joined);
    });
    ws.on('error', () => {});
  };

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (!WEBSOCKET_PATHS.has(url.pathname)) return; // Socket.IO's, or nobody's
    void (async () => {
      if (engine.closing()) return rejectUpgrade(socket, 503, 'Service Unavailable', 'Server is shutting down');
      const vsn = url.searchParams.get('vsn') ?? '1.0.0';
      if (vsn !== '1.0.0' && vsn !== '2.0.0') {
        return rejectUpgrade(socket, 400, 'Bad Request', 'vsn must be 1.0.0 or 2.0.0');
      }
      const header = req.headers.apikey;
      const apikey = url.searchParams.get('apikey') ?? (typeof header === 'string' ? header : null);
      if (!apikey) return rejectUpgrade(socket, 401, 'Unauthorized', 'An apikey is required');
      let principal: Principal;
      try {
        principal = await resolve(apikey);
      } catch (err) {
        return rejectUpgrade(socket, 401, 'Unauthorized', err instanceof AppError ? err.message : 'Invalid apikey');
      }
      const ip = clientIp(req, config.trustProxy);
      const ticket = engine.admission.admit(ip, userOf(principal));
      if ('refused' in ticket) return rejectUpgrade(socket, 429, 'Too Many Requests', BUSY.message);
      wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws, vsn, ip, principal, apikey, ticket));
    })().catch((err) => {
      options.onError(err, 'a Phoenix upgrade');
      socket.destroy();
    });
  };
  httpServer.on('upgrade', onUpgrade);

  const credentialTimer = setInterval(() => {
    for (const conn of connections) credentialEnded(conn);
  }, config.realtimeCredentialCheckMs);
  credentialTimer.unref();

  return {
    /** Closes every socket (clients reconnect, to another server); presence is retired by the engine. */
    async close(): Promise<void> {
      clearInterval(credentialTimer);
      httpServer.off('upgrade', onUpgrade);
      for (const conn of connections) conn.ws.terminate();
      await new Promise<void>((done) => wss.close(() => done()));
    },
  };
}
