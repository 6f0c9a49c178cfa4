// The archive framing read back whatever the chunking of the bytes: COPY blocks (empty ones, rows
// that contain backslashes, a `\.` inside a row), stored files, and truncation anywhere detected;
// the signature in the end record verifies under the signing key only, and not once a byte changed.
import { randomBytes } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { archiveMacCheck } from '../../../src/modules/backups/archive-mac.js';
import { archiveReader, archiveWriter, type ArchiveRecord } from '../../../src/modules/backups/archive.js';

const KEY = randomBytes(32);

const ROWS = Buffer.from('1\tplain\n2\ta\\\\.b\n3\t\\\\.\n4\t\\N\n'.repeat(5000));
const FILE = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7) % 256));

async function archive(): Promise<Buffer> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  const w = archiveWriter(out, KEY);
  await w.start();
  await w.record({ sql: 'CREATE TABLE "a\nb" ()' });
  await w.record({ copy: 'public.t', columns: ['"id"', '"v"'] });
  await w.copyRows(Readable.from([ROWS.subarray(0, 1000), ROWS.subarray(1000)]));
  await w.record({ copy: 'public.empty', columns: ['"id"'] });
  await w.copyRows(Readable.from([]));
  await w.blob('f1', FILE.length, Readable.from([FILE]));
  await w.end();
  out.end();
  return Buffer.concat(chunks);
}

async function readAll(bytes: Buffer, chunkSize: number) {
  const chunks = [];
  for (let i = 0; i < bytes.length; i += chunkSize) chunks.push(bytes.subarray(i, i + chunkSize));
  return readStream(Readable.from(chunks));
}

async function readStream(input: Readable) {
  const r = archiveReader(input);
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
        { end: true, mac: expect.stringMatching(/^[0-9a-f]{64}$/) },
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

/** The verdict of the mac check on `bytes` fed in `chunkSize` pieces, and the bytes it let through. */
async function verdictOf(bytes: Buffer, keys: Buffer[], chunkSize = 4096) {
  const check = archiveMacCheck(keys, { require: false });
  const out: Buffer[] = [];
  check.tap.on('data', (c: Buffer) => out.push(c));
  const done = new Promise((resolve) => check.tap.on('end', resolve));
  for (let i = 0; i < bytes.length; i += chunkSize) check.tap.write(bytes.subarray(i, i + chunkSize));
  check.tap.end();
  await done;
  return { verdict: await check.verdict, through: Buffer.concat(out) };
}

describe('archive signature', () => {
  it('verifies under the signing key (among others), at any chunk size, passing every byte through', async () => {
    const bytes = await archive();
    for (const size of [7, 4096, bytes.length]) {
      const { verdict, through } = await verdictOf(bytes, [randomBytes(32), KEY], size);
      expect(verdict).toBe('valid');
      expect(through.equals(bytes)).toBe(true);
    }
  });

  it('does not verify under another key, after one changed byte, or without its mac', async () => {
    const bytes = await archive();
    expect((await verdictOf(bytes, [randomBytes(32)])).verdict).toBe('invalid');
    for (const at of [3, 60, 40_000, bytes.length - 120]) {
      const changed = Buffer.from(bytes);
      changed[at] = (changed[at] as number) ^ 1;
      expect((await verdictOf(changed, [KEY])).verdict).toBe('invalid');
    }
    const text = bytes.toString('latin1');
    const unsigned = Buffer.from(text.replace(/\{"end":true,"mac":"[0-9a-f]+"\}\n$/, '{"end":true}\n'), 'latin1');
    expect(unsigned.length).toBeLessThan(bytes.length);
    expect((await verdictOf(unsigned, [KEY])).verdict).toBe('unsigned');
  });

  it('fails the stream when a signature is required and wrong', async () => {
    const check = archiveMacCheck([randomBytes(32)], { require: true });
    check.tap.end(await archive());
    await expect(readStream(check.tap)).rejects.toThrow(/signature does not match/);
  });
});
