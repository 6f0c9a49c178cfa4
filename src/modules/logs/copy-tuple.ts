// One log entry as a tuple of PostgreSQL's binary COPY format, in the column order of
// COPY_COLUMNS, written straight into the batch's bytes: the only per-entry work the writer does
// on the request path. Binary rather than text: nothing to escape here, and PostgreSQL reads the
// time, id and numbers without parsing text (measured: the text time alone cost ~0.8 µs a row).
import type { LogEntry } from './log-entry.js';

export const COPY_COLUMNS =
  'id, ts, source, level, method, route, status, duration_ms, principal, user_id, ip, request_id, slug, message, details';

const FIELDS = 15;

/** What a binary COPY opens with: the signature, no flags, no header extension. */
export const COPY_HEADER = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);
/** What it ends with: a field count of -1. */
export const COPY_TRAILER = Buffer.from([0xff, 0xff]);

/** PostgreSQL's epoch (2000-01-01) in Unix milliseconds: timestamps count microseconds from it. */
const PG_EPOCH_MS = 946_684_800_000;
const TWO_TO_32 = 4_294_967_296;

/** Field count, the id (16 bytes), the time (8), status (4) and duration (4), each with its length. */
const FIXED_BYTES = 2 + 20 + 12 + 8 + 8;
/** Length words of the ten text fields and the details, and the jsonb version byte. */
const VARIABLE_OVERHEAD = 11 * 4 + 1;

/** Text and JSON without NUL, which PostgreSQL's text and jsonb refuse (one would fail the batch). */
const withoutNul = (value: string): string => (value.includes('\0') ? value.replaceAll('\0', '') : value);
/** JSON's escape of NUL (an odd run of backslashes before u0000; an even run is literal text). */
const JSON_NUL = /(?<=(?:^|[^\\])(?:\\\\)*)\\u0000/g;
const jsonOf = (details: LogEntry['details']): string | null =>
  details === null ? null : JSON.stringify(details).replace(JSON_NUL, '');

/** The entry's JSON details, serialized once: the tuple's size and its bytes both need them. */
export interface PreparedEntry {
  entry: LogEntry;
  details: string | null;
}

export const prepareEntry = (entry: LogEntry): PreparedEntry => ({ entry, details: jsonOf(entry.details) });

/** The most bytes the entry's tuple takes (UTF-8 takes at most 3 bytes per UTF-16 unit). */
export function maxTupleBytes({ entry: e, details }: PreparedEntry): number {
  const chars =
    e.source.length +
    e.level.length +
    (e.method?.length ?? 0) +
    (e.route?.length ?? 0) +
    (e.principal?.length ?? 0) +
    (e.userId?.length ?? 0) +
    (e.ip?.length ?? 0) +
    (e.requestId?.length ?? 0) +
    (e.slug?.length ?? 0) +
    e.message.length +
    (details?.length ?? 0);
  return FIXED_BYTES + VARIABLE_OVERHEAD + chars * 3;
}

/**
 * The string's UTF-8 bytes at `at`, returning how many. Most values are short and ASCII: copied
 * char by char here, which costs less than a call into the native encoder (measured ~2×).
 */
function writeString(buf: Buffer, at: number, value: string): number {
  const length = value.length;
  if (length > 64) return buf.write(value, at);
  for (let i = 0; i < length; i++) {
    const code = value.charCodeAt(i);
    if (code > 0x7f) return buf.write(value, at);
    buf[at + i] = code;
  }
  return length;
}

function writeText(buf: Buffer, at: number, value: string | null): number {
  if (value === null) {
    buf.writeInt32BE(-1, at);
    return at + 4;
  }
  const length = writeString(buf, at + 4, value);
  buf.writeInt32BE(length, at);
  return at + 4 + length;
}

/** Hex digit values by char code (-1: not a hex digit). */
const HEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) {
  HEX['0123456789abcdef'.charCodeAt(i)] = i;
  HEX['0123456789ABCDEF'.charCodeAt(i)] = i;
}

/** A UUID's 16 bytes (its text form: hex digits and dashes). */
function writeUuid(buf: Buffer, at: number, id: string): void {
  let byte = 0;
  for (let i = 0; i < id.length && byte < 16; i++) {
    const high = HEX[id.charCodeAt(i)] ?? -1;
    if (high < 0) continue;
    buf[at + byte++] = (high << 4) | (HEX[id.charCodeAt(++i)] ?? 0);
  }
}

function writeNumber(buf: Buffer, at: number, value: number | null, kind: 'int4' | 'float4'): number {
  if (value === null) {
    buf.writeInt32BE(-1, at);
    return at + 4;
  }
  buf.writeInt32BE(4, at);
  if (kind === 'int4') buf.writeInt32BE(value, at + 4);
  else buf.writeFloatBE(value, at + 4);
  return at + 8;
}

/**
 * Writes the tuple at `at` (room for maxTupleBytes must be there) and returns where it ends.
 * `microsecond` (0–999) orders entries of the same millisecond by arrival: the timestamp is the
 * entry's millisecond plus that many microseconds, so newest-first holds without a sequence.
 */
export function writeTuple(buf: Buffer, at: number, prepared: PreparedEntry, microsecond: number): number {
  const e = prepared.entry;
  buf.writeInt16BE(FIELDS, at);
  buf.writeInt32BE(16, at + 2);
  writeUuid(buf, at + 6, e.id);
  const micros = (e.ts.getTime() - PG_EPOCH_MS) * 1000 + microsecond;
  const high = Math.floor(micros / TWO_TO_32);
  buf.writeInt32BE(8, at + 22);
  buf.writeInt32BE(high, at + 26);
  buf.writeUInt32BE(micros - high * TWO_TO_32, at + 30);
  let end = writeText(buf, at + 34, e.source);
  end = writeText(buf, end, e.level);
  end = writeText(buf, end, e.method);
  end = writeText(buf, end, e.route);
  end = writeNumber(buf, end, e.status, 'int4');
  end = writeNumber(buf, end, e.durationMs, 'float4');
  end = writeText(buf, end, e.principal);
  end = writeText(buf, end, e.userId);
  end = writeText(buf, end, e.ip);
  end = writeText(buf, end, e.requestId);
  end = writeText(buf, end, e.slug === null ? null : withoutNul(e.slug));
  end = writeText(buf, end, withoutNul(e.message));
  if (prepared.details === null) {
    buf.writeInt32BE(-1, end);
    return end + 4;
  }
  // jsonb's binary form: a version byte (1), then the JSON text.
  const length = writeString(buf, end + 5, prepared.details);
  buf.writeInt32BE(length + 1, end);
  buf.writeUInt8(1, end + 4);
  return end + 5 + length;
}
