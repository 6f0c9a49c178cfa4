// What the socket server answers when it refuses: the realtime:error and ack shapes, the codes
// (rate limited: this connection's own budget; busy: capacity, retryable, never "unauthorized"),
// which database failures mean load rather than a refusal, and whom a socket counts against (its
// client address and signed-in user).
import type { Socket } from 'socket.io';
import { AppError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import { fromPgError } from '../../core/pg-errors.js';
import type { RefusalReason } from './realtime-refusals.js';

export const INTERNAL_SUBSCRIBE = { code: 'INTERNAL_ERROR', message: 'Failed to subscribe to channel' };
export const refusal = (channel: unknown, code: string, message: string) => ({ channel, code, message });
export const RATE_LIMITED = {
  code: 'REALTIME_RATE_LIMITED',
  message: 'Too many realtime events from this connection; slow down and retry in a second',
};
export const BYTES_LIMITED = {
  code: 'REALTIME_RATE_LIMITED',
  message: 'Too many payload bytes from this connection; slow down and retry in a second',
};
/** Capacity refusals: retryable, and never mistaken for a permission answer. */
export const BUSY = { code: 'REALTIME_BUSY', message: 'The realtime server is busy; retry in a moment' };
export const BUSY_HANDSHAKE: Partial<Record<RefusalReason, string>> = {
  sockets_per_ip: 'Server busy: too many connections from this address; retry later',
  sockets_per_user: 'Server busy: too many connections for this user; retry later',
};

/** A database failure that says "too much load" (pool full, timeout, lost connection), not "no". */
export function isCapacityFailure(err: unknown): boolean {
  if (err instanceof AppError) return err.statusCode === 503;
  // The one table's 503 (connection lost or refused, resources short) and 504 (statement timeout).
  const status = fromPgError(err)?.statusCode;
  return status === 503 || status === 504;
}

/** The client's address: the socket's peer, or the first X-Forwarded-For hop behind a trusted proxy. */
export function clientIp(socket: Socket, trustProxy: boolean): string {
  const forwarded = socket.handshake.headers['x-forwarded-for'];
  const first = typeof forwarded === 'string' ? forwarded.split(',')[0]?.trim() : undefined;
  return trustProxy && first ? first : socket.handshake.address;
}

export const userOf = (principal: Principal): string | null =>
  principal.kind === 'user'
    ? principal.userId
    : principal.kind === 'admin' && principal.via === 'token'
      ? principal.subject
      : null;
