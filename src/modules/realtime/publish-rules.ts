// What a client may publish: never into a table channel (row changes come from the server
// only), never under an event name the server or the client library uses itself (a forged
// `INSERT`, `presence:join`, `notification` or `realtime:error` would reach listeners as real),
// and never a payload past the size limit. Each refusal is the `realtime:error` the client sees.

/** Names the server emits or socket.io / the official client keep for local events (lower case). */
const RESERVED_EVENTS = new Set([
  'insert',
  'update',
  'delete',
  'notification',
  'connect',
  'connect_error',
  'disconnect',
  'disconnecting',
  'error',
  'newlistener',
  'removelistener',
]);
/** Prefixes of the server's own event families (realtime:error, presence:join/leave, …). */
const RESERVED_PREFIXES = ['realtime:', 'presence:'];
/** Channels whose messages are row changes of watched tables (realtime.watch_table). */
const TABLE_CHANNEL_PREFIX = 'table:';
const MAX_EVENT_LENGTH = 255;

export interface PublishRefusal {
  code: string;
  message: string;
}

export function isReservedEvent(event: string): boolean {
  const lower = event.toLowerCase();
  return RESERVED_EVENTS.has(lower) || RESERVED_PREFIXES.some((prefix) => lower.startsWith(prefix));
}

/** Why a client's publish of `event` on `channel` is refused before it reaches the database; null if it may go on. */
export function refusePublish(channel: string, event: unknown): PublishRefusal | null {
  if (channel.startsWith(TABLE_CHANNEL_PREFIX)) {
    return {
      code: 'REALTIME_UNAUTHORIZED',
      message: 'Table channels are read-only: only the server publishes row changes on them',
    };
  }
  if (typeof event !== 'string' || event.length === 0 || event.length > MAX_EVENT_LENGTH) {
    return {
      code: 'REALTIME_INVALID_EVENT',
      message: `The event name must be a string of 1 to ${MAX_EVENT_LENGTH} characters`,
    };
  }
  if (isReservedEvent(event)) {
    return {
      code: 'REALTIME_INVALID_EVENT',
      message: `The event name "${event}" is reserved for the server; choose another name`,
    };
  }
  return null;
}

/** The payload as JSON text and its size in bytes, or the refusal when it is past `maxBytes`. */
export function measurePayload(
  payload: unknown,
  maxBytes: number,
): { ok: true; json: string | undefined; bytes: number } | { ok: false; refusal: PublishRefusal } {
  const json = JSON.stringify(payload);
  const bytes = json === undefined ? 0 : Buffer.byteLength(json);
  if (bytes <= maxBytes) return { ok: true, json, bytes };
  return {
    ok: false,
    refusal: {
      code: 'REALTIME_PAYLOAD_TOO_LARGE',
      message: `The payload is ${bytes} bytes; at most ${maxBytes} bytes may be published`,
    },
  };
}
