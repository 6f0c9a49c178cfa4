// The archive framing read back whatever the chunking of the bytes: COPY blocks (empty ones, rows
// that contain backslashes, a `\.` inside a row), stored files, and truncation anywhere detected.
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { archiveReader, archiveWriter, type ArchiveRecord } from '../../../src/modules/backups/archive.js';

const ROWS = Buffer.from('1\tplain\n2\ta\\\\.b\n3\t\\\\.\n4\t\\N\n'.repeat(5000));
const FILE = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7) % 256));

async function archive(): Promise<Buffer> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  const w = archiveWriter(out);
  await w.start();
  await w.record({ sql: 'CREATE TABLE "a\nb" ()' });
  await w.record({ copy: 'public.t', columns: ['"id"', '"v"'] });
  await w.copyRows(Readable.from([ROWS.subarray(0, 1000), ROWS.subarray(1000)]));
  await w.record({ copy: 'public.empty', columns: ['"id"'] });
  await w.copyRows(Readable.from([]));
  await w.blob('f1', FILE.length, Readable.from([FILE]));
  await w.record({ end: true });
  out.end();
  return Buffer.concat(chunks);
}

async function readAll(bytes: Buffer, chunkSize: number) {
  const chunks = [];
  for (let i = 0; i < bytes.length; i += chunkSize) chunks.push(bytes.subarray(i, i + chunkSize));
  const r = archiveReader(Readable.from(chunks));
  await r.start();
  const seen: (ArchiveRecord | { rows: Buffer } | { file: Buffer })[] = [];
  for (;;) {
    const record = await r.next();
    seen.push(record);
    if ('end' in record) return seen;
    if ('copy' in record) {
      const parts = [];
      for await (const part of r.rows()) parts.push(part);
      seen.push({ rows: Buffer.concat(parts) });
    }
    if ('blob' in record) {
      const parts = [];
      for await (const part of r.bytes(record.size)) parts.push(part);
      seen.push({ file: Buffer.concat(parts) });
    }
  }
}

describe('archive framing', () => {
  it('reads back every record, row and byte at any chunk size', async () => {
    const bytes = await archive();
    for (const size of [7, 4096, 65_537, bytes.length]) {
      const seen = await readAll(bytes, size);
      expect(seen).toEqual([
        { sql: 'CREATE TABLE "a\nb" ()' },
        { copy: 'public.t', columns: ['"id"', '"v"'] },
        { rows: ROWS },
        { copy: 'public.empty', columns: ['"id"'] },
        { rows: Buffer.alloc(0) },
        { blob: 'f1', size: FILE.length },
        { file: FILE },
        { end: true },
      ]);
    }
  });

  it('refuses an archive cut short anywhere', async () => {
    const bytes = await archive();
    for (const cut of [5, 40, 100, 50_000, bytes.length - 80_000, bytes.length - 20, bytes.length - 2]) {
      await expect(readAll(bytes.subarray(0, cut), 4096)).rejects.toThrow(/archive/i);
    }
  });
});
