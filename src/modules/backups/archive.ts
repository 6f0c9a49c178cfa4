// The archive format: a gzip of lines. The first line is `PLINTH-BACKUP 1`; each record is one
// JSON line: {"header": {...}}, {"sql": "..."}, {"phase": "..."}, or {"copy": table, "columns": [...]}
// followed by the table's rows in COPY text format and a `\.` line (COPY escapes backslashes, so
// no row is ever `\.`), or {"blob": id, "size": n} followed by the n bytes of a stored file and a
// newline; the last record is {"end": true, "mac": "…"}, so a truncated archive is detected and a
// changed or foreign one is told apart (archive-mac.ts).
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import { archiveSigner } from './archive-mac.js';

export const MAGIC = 'PLINTH-BACKUP 1';
const TERMINATOR = Buffer.from('\\.\n');
const NEWLINE_TERMINATOR = Buffer.from('\n\\.\n');

export interface ArchiveHeader {
  format: 1;
  createdAt: string;
  /** The platform migrations applied where the backup was made; a restore needs the same ones. */
  platformMigrations: string[];
  userSchemas: string[];
  /** The extensions in the user schemas (absent in archives made before it was recorded). */
  extensions?: string[];
}

export type ArchiveRecord =
  | { header: ArchiveHeader }
  | { sql: string }
  | { phase: 'system-data' | 'files' | 'user-schema' | 'user-data' | 'user-post' }
  | { blob: string; size: number }
  | { copy: string; columns: string[] }
  | { end: true; mac?: string };

/** Writes records to `out`, waiting whenever it is full, signing every byte under `macKey`. */
export function archiveWriter(out: Writable, macKey: Buffer) {
  const signer = archiveSigner(macKey);
  const send = async (chunk: Buffer | string) => {
    if (!out.write(chunk)) await once(out, 'drain');
  };
  const write = (chunk: Buffer | string) => {
    signer.update(chunk);
    return send(chunk);
  };
  return {
    start: () => write(`${MAGIC}\n`),
    record: (r: Exclude<ArchiveRecord, { end: true }>) => write(`${JSON.stringify(r)}\n`),
    /** The last record, carrying the signature of everything before it. */
    end: () => send(`${JSON.stringify({ end: true, mac: signer.mac() })}\n`),
    /** Copies a table's COPY output (already newline-terminated rows) and closes the block. */
    async copyRows(rows: AsyncIterable<Buffer>) {
      for await (const chunk of rows) await write(chunk);
      await write(TERMINATOR);
    },
    /** A stored file: its record, exactly `size` bytes, a newline. */
    async blob(id: string, size: number, bytes: AsyncIterable<Buffer>) {
      await write(`${JSON.stringify({ blob: id, size })}\n`);
      let written = 0;
      for await (const chunk of bytes) {
        written += chunk.length;
        await write(chunk);
      }
      if (written !== size) throw new Error(`stored file ${id} has ${written} bytes, its row says ${size}`);
      await write('\n');
    },
  };
}

export class ArchiveFormatError extends Error {}

/** Reads records back from the (gunzipped) bytes; copy rows must be drained with `rows()`. */
export function archiveReader(input: Readable) {
  const chunks = input[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let buffer: Buffer = Buffer.alloc(0);
  let ended = false;

  const fill = async (): Promise<boolean> => {
    if (ended) return false;
    let next: IteratorResult<Buffer>;
    try {
      next = await chunks.next();
    } catch (err) {
      throw new ArchiveFormatError(`the archive cannot be read (${(err as Error).message}).`);
    }
    if (next.done) {
      ended = true;
      return false;
    }
    buffer = buffer.length ? Buffer.concat([buffer, next.value]) : next.value;
    return true;
  };

  const line = async (): Promise<string> => {
    for (;;) {
      const at = buffer.indexOf(10);
      if (at >= 0) {
        const text = buffer.subarray(0, at).toString('utf8');
        buffer = buffer.subarray(at + 1);
        return text;
      }
      if (!(await fill())) throw new ArchiveFormatError('The archive ends in the middle of a record.');
    }
  };

  return {
    async start() {
      if ((await line()) !== MAGIC) throw new ArchiveFormatError('This is not a Plinth backup archive.');
    },
    async next(): Promise<ArchiveRecord> {
      const text = await line();
      try {
        return JSON.parse(text) as ArchiveRecord;
      } catch {
        throw new ArchiveFormatError('The archive holds a record that is not valid.');
      }
    },
    /** The `size` bytes of the blob record just read (and its closing newline). */
    async *bytes(size: number): AsyncGenerator<Buffer> {
      let left = size;
      while (left > 0) {
        if (buffer.length === 0 && !(await fill()))
          throw new ArchiveFormatError('The archive ends in the middle of a file.');
        const take = buffer.subarray(0, Math.min(left, buffer.length));
        buffer = buffer.subarray(take.length);
        left -= take.length;
        yield take;
      }
      if (buffer.length === 0 && !(await fill()))
        throw new ArchiveFormatError('The archive ends in the middle of a file.');
      if (buffer[0] !== 10) throw new ArchiveFormatError('A file in the archive does not end where its record says.');
      buffer = buffer.subarray(1);
    },
    /** Fails unless nothing follows the record just read (the archive's last one). */
    async finish(): Promise<void> {
      while (buffer.length === 0) if (!(await fill())) return;
      throw new ArchiveFormatError('The archive goes on after its last record.');
    },
    /** The rows of the copy block just read, up to (not including) its `\.` line. */
    async *rows(): AsyncGenerator<Buffer> {
      for (;;) {
        if (buffer.subarray(0, TERMINATOR.length).equals(TERMINATOR)) {
          buffer = buffer.subarray(TERMINATOR.length);
          return;
        }
        const at = buffer.indexOf(NEWLINE_TERMINATOR);
        if (at >= 0) {
          const rows = buffer.subarray(0, at + 1);
          buffer = buffer.subarray(at + NEWLINE_TERMINATOR.length);
          yield rows;
          return;
        }
        // Hand on whole lines only, keeping the last partial one (it may be the terminator's start).
        const lastNewline = buffer.lastIndexOf(10);
        if (lastNewline >= 0 && buffer.length >= 1 << 14) {
          const rows = buffer.subarray(0, lastNewline);
          buffer = buffer.subarray(lastNewline);
          yield rows;
        }
        if (!(await fill())) throw new ArchiveFormatError('The archive ends in the middle of a table.');
      }
    },
  };
}
