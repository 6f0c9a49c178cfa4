// The install step's driver patch reaches installs patched by an earlier version of it: a copy of
// the installed postgres.js made to look like one patched before the COPY-end resume existed (no
// kept original, that patch missing) comes out exactly as a fresh install does, and a second run
// changes nothing.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';

const installed = path.join(import.meta.dirname, '..', '..', 'node_modules', 'postgres');
const script = path.join(import.meta.dirname, '..', '..', 'scripts', 'patch-postgres.mjs');
const work = mkdtempSync(path.join(tmpdir(), 'plinth-patch-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const RESUME = "    socket.resume() // plinth-patch: no more copy data; the connection's next answers must flow\n";
const FILES = ['src/connection.js', 'src/index.js', 'cjs/src/connection.js', 'cjs/src/index.js'];
const run = (dir: string) => execFileSync(process.execPath, [script, dir], { encoding: 'utf8' });

it('brings an install patched by an older version up to the current patches', () => {
  const old = path.join(work, 'old');
  cpSync(installed, old, { recursive: true });
  for (const dir of ['src', 'cjs/src']) {
    for (const f of readdirSync(path.join(old, dir))) {
      if (f.endsWith('.plinth-orig')) rmSync(path.join(old, dir, f));
    }
    const connection = path.join(old, dir, 'connection.js');
    const text = readFileSync(connection, 'utf8');
    expect(text).toContain(RESUME);
    writeFileSync(connection, text.replace(RESUME, ''));
  }

  expect(run(old)).toMatch(/patched 2 files/);
  for (const f of FILES)
    expect(readFileSync(path.join(old, f), 'utf8')).toBe(readFileSync(path.join(installed, f), 'utf8'));
  expect(run(old)).toMatch(/already patched/);
});
