// One Phoenix WebSocket: who it is (the apikey's principal, or the access token a join or an
// `access_token` push gave it), its place among the sockets of its address and user (socket caps,
// shared event budgets) and its own event and byte budgets, and how frames go out (a client that
// stops reading is cut).
import type { WebSocket } from 'ws';
import type { RequestScope } from '../../../core/db.js';
import type { Principal } from '../../../core/principal.js';
import type { EventBudget } from '../../realtime/index.js';
import type { Binding } from './postgres-bindings.js';
import { encode, type PhoenixMessage, type Vsn } from './phoenix-frames.js';

/** Unsent bytes a socket may hold before it is taken for a reader that stopped. */
const MAX_BACKLOG_BYTES = 4 * 1024 * 1024;

export interface TopicRights {
  readBroadcast: boolean;
  readPresence: boolean;
  writePresence: boolean;
}

/** One joined topic of a connection. */
export interface Joined {
  conn: Connection;
  /** The wire topic (realtime:<topic>). */
  wireTopic: string;
  topic: string;
  /** Plinth's channel name for it. */
  channel: string;
  joinRef: string | null;
  self: boolean;
  ack: boolean;
  presenceKey: string;
  private: boolean;
  rights: TopicRights;
  bindings: Binding[];
  /** The watched-table channels its bindings listen on. */
  tableChannels: string[];
  /** The presence ref this join tracks (its presence row), or null. */
  tracked: string | null;
  /** What it tracks ({key, payload}), to join again after this server was taken for dead. */
  trackedMeta: unknown;
  /** The presence row's socket id (one per connection and topic). */
  memberSocketId: string;
  /** Marks this join's own broadcasts (for `self: false`). */
  senderId: string;
}

export interface Connection {
  id: string;
  ws: WebSocket;
  vsn: Vsn;
  ip: string;
  principal: Principal;
  scope: RequestScope;
  credential: string;
  ticket: { takeEvent(): unknown; release(): void };
  budget: EventBudget;
  bytes: EventBudget;
  joined: Map<string, Joined>;
  closed: boolean;
  /** Serialises the connection's frames (a join finishes before the next frame is handled). */
  queue: Promise<void>;
}

/** Sends a frame; a client whose unsent backlog is past the bound is cut (false). */
export function send(conn: Connection, message: PhoenixMessage, onSlow: (conn: Connection) => void): boolean {
  if (conn.closed || conn.ws.readyState !== conn.ws.OPEN) return false;
  if (conn.ws.bufferedAmount > MAX_BACKLOG_BYTES) {
    conn.ws.terminate();
    onSlow(conn);
    return false;
  }
  conn.ws.send(encode(conn.vsn, message));
  return true;
}

export const replyOf = (
  request: { joinRef: string | null; ref: string | null; topic: string },
  status: 'ok' | 'error',
  response: unknown,
): PhoenixMessage => ({
  joinRef: request.joinRef,
  ref: request.ref,
  topic: request.topic,
  event: 'phx_reply',
  payload: { status, response },
});

export const pushOf = (joined: Joined, event: string, payload: unknown): PhoenixMessage => ({
  joinRef: joined.joinRef,
  ref: null,
  topic: joined.wireTopic,
  event,
  payload,
});
