// The archive's authentication: an HMAC-SHA256, under a key derived from the project's master key,
// of every (gunzipped) byte before the last line, carried by that line: {"end":true,"mac":"…"}.
// An archive made by a server of this project verifies; a foreign or changed one does not.
import { createHmac, type Hmac, timingSafeEqual } from 'node:crypto';
import { Transform } from 'node:stream';

/** 'valid': signed under one of our keys; 'unsigned': no mac; 'invalid': a mac that does not match. */
export type MacVerdict = 'valid' | 'unsigned' | 'invalid';

export class ArchiveMacError extends Error {}

/** The signer the writer feeds every byte it writes; `mac()` is the hex digest for the end record. */
export function archiveSigner(key: Buffer) {
  const hmac = createHmac('sha256', key);
  return { update: (chunk: Buffer | string) => void hmac.update(chunk), mac: () => hmac.digest('hex') };
}

// The end record is ~90 bytes; the window keeps it (and more) back until the stream ends.
const WINDOW = 512;

/**
 * A pass-through for the gunzipped archive that hashes it under every key (the first signs, the
 * others are previous master keys') and settles `verdict` when it ends. The last WINDOW bytes are
 * held back until then, so a reader sees the end record only once the verdict is known; with
 * `require`, a verdict other than 'valid' fails the stream there instead.
 */
export function archiveMacCheck(keys: Buffer[], options: { require: boolean }) {
  const hmacs: Hmac[] = keys.map((k) => createHmac('sha256', k));
  let held: Buffer = Buffer.alloc(0);
  let settle: (v: MacVerdict) => void = () => {};
  const verdict = new Promise<MacVerdict>((resolve) => {
    settle = resolve;
  });
  const hash = (bytes: Buffer) => {
    for (const h of hmacs) h.update(bytes);
  };
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      held = Buffer.concat([held, chunk]);
      if (held.length > WINDOW) {
        const out = held.subarray(0, held.length - WINDOW);
        held = held.subarray(held.length - WINDOW);
        hash(out);
        return done(null, out);
      }
      done();
    },
    flush(done) {
      const result = judge(held, hash, hmacs);
      settle(result);
      if (options.require && result !== 'valid')
        return done(
          new ArchiveMacError(
            result === 'unsigned'
              ? 'it carries no signature of this project.'
              : "its signature does not match (it was changed, or made by another project's key).",
          ),
        );
      done(null, held);
    },
  });
  // A stream destroyed before its end (a damaged gzip) has no verdict: call it unsigned.
  tap.on('close', () => settle('unsigned'));
  return { tap, verdict };
}

/** The verdict on the held tail: its last line is the end record, the bytes before it are hashed. */
function judge(tail: Buffer, hash: (b: Buffer) => void, hmacs: Hmac[]): MacVerdict {
  const lastNewline = tail.length > 0 && tail[tail.length - 1] === 10 ? tail.lastIndexOf(10, tail.length - 2) : -1;
  if (lastNewline < 0) return 'unsigned';
  hash(tail.subarray(0, lastNewline + 1));
  let mac: unknown;
  try {
    mac = (JSON.parse(tail.subarray(lastNewline + 1).toString('utf8')) as { mac?: unknown }).mac;
  } catch {
    return 'unsigned';
  }
  if (typeof mac !== 'string') return 'unsigned';
  const given = Buffer.from(mac, 'hex');
  const matches = hmacs.some((h) => {
    const expected = h.digest();
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  return matches ? 'valid' : 'invalid';
}
