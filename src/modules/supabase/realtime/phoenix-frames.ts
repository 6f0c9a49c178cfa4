// Phoenix channel frames as realtime-js speaks them: vsn 1.0.0 (JSON objects), vsn 2.0.0 (JSON
// arrays [join_ref, ref, topic, event, payload], plus binary "user broadcast push" frames, kind 3),
// decoded into one message shape and encoded back for the client's version. Malformed frames are
// null (the server ignores them).

export type Vsn = '1.0.0' | '2.0.0';

export interface PhoenixMessage {
  joinRef: string | null;
  ref: string | null;
  topic: string;
  event: string;
  payload: unknown;
}

const KIND_USER_BROADCAST_PUSH = 3;
const JSON_ENCODING = 1;
const HEADER_BYTES = 7;

const refOf = (value: unknown): string | null =>
  typeof value === 'string' ? value : typeof value === 'number' ? String(value) : null;

function fromParts(joinRef: unknown, ref: unknown, topic: unknown, event: unknown, payload: unknown) {
  if (typeof topic !== 'string' || typeof event !== 'string') return null;
  return { joinRef: refOf(joinRef), ref: refOf(ref), topic, event, payload: payload ?? {} };
}

/** A text frame of either version (v2 sends arrays, v1 objects). */
export function decodeText(text: string): PhoenixMessage | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (Array.isArray(parsed)) {
    if (parsed.length !== 5) return null;
    return fromParts(parsed[0], parsed[1], parsed[2], parsed[3], parsed[4]);
  }
  if (typeof parsed !== 'object' || parsed === null) return null;
  const o = parsed as Record<string, unknown>;
  return fromParts(o.join_ref, o.ref, o.topic, o.event, o.payload);
}

/**
 * A binary frame: only kind 3 (a user broadcast push) with a JSON payload is accepted; a binary
 * payload cannot be stored as a message (JSON) and is refused by returning `binaryPayload`.
 */
export function decodeBinary(data: Buffer): PhoenixMessage | { binaryPayload: true; message: PhoenixMessage } | null {
  if (data.length < HEADER_BYTES || data[0] !== KIND_USER_BROADCAST_PUSH) return null;
  const sizes = [data[1], data[2], data[3], data[4], data[5]] as number[];
  const encoding = data[6];
  let offset = HEADER_BYTES;
  const parts: string[] = [];
  for (const size of sizes) {
    if (offset + size > data.length) return null;
    parts.push(data.subarray(offset, offset + size).toString('utf8'));
    offset += size;
  }
  const [joinRef, ref, topic, userEvent, metadata] = parts as [string, string, string, string, string];
  const body = data.subarray(offset);
  const message: PhoenixMessage = {
    joinRef: joinRef || null,
    ref: ref || null,
    topic,
    event: 'broadcast',
    payload: { type: 'broadcast', event: userEvent },
  };
  if (metadata) {
    try {
      (message.payload as Record<string, unknown>).meta = JSON.parse(metadata);
    } catch {
      return null;
    }
  }
  if (encoding !== JSON_ENCODING) return { binaryPayload: true, message };
  try {
    (message.payload as Record<string, unknown>).payload = body.length === 0 ? {} : JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
  return message;
}

/** A message as a text frame for the client's version. */
export function encode(vsn: Vsn, message: PhoenixMessage): string {
  if (vsn === '2.0.0') {
    return JSON.stringify([message.joinRef, message.ref, message.topic, message.event, message.payload]);
  }
  return JSON.stringify({
    join_ref: message.joinRef,
    ref: message.ref,
    topic: message.topic,
    event: message.event,
    payload: message.payload,
  });
}
