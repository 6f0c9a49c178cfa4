// The benchmark's database: an embedded PostgreSQL in a temporary directory on a free port, with
// one fresh database for the run; stop() removes every trace of it.
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { startEmbeddedPostgres } from '../../src/platform/embedded-postgres.js';
import { freePort } from '../../test/harness/free-port.js';

export interface BenchDatabase {
  /** URL of the run's own database. */
  url: string;
  /** Scratch directory for the run (removed by stop). */
  dir: string;
  /** PostgreSQL's data directory (inside dir). */
  pgDataDir: string;
  stop(): Promise<void>;
}

const DB_NAME = 'plinth_bench';

export interface BenchDatabaseOptions {
  /** PostgreSQL settings on its command line, e.g. `{ wal_level: 'logical' }` for logical change capture. */
  settings?: Record<string, string>;
}

export async function startBenchDatabase(options: BenchDatabaseOptions = {}): Promise<BenchDatabase> {
  const dir = await mkdtemp(path.join(tmpdir(), 'plinth-bench-'));
  // On Ctrl-C PostgreSQL (in our process group) gets the signal too and stops; this removes the rest.
  const removeOnExit = () => rmSync(dir, { recursive: true, force: true });
  process.once('exit', removeOnExit);
  try {
    const embedded = await startEmbeddedPostgres({
      dataDir: dir,
      port: await freePort(),
      persistent: false,
      settings: options.settings,
    });
    try {
      const admin = postgres(embedded.url, { max: 1, onnotice: () => {} });
      try {
        await admin.unsafe(`create database ${DB_NAME}`);
      } finally {
        await admin.end();
      }
    } catch (err) {
      await embedded.stop();
      throw err;
    }
    const url = new URL(embedded.url);
    url.pathname = `/${DB_NAME}`;
    return {
      url: url.toString(),
      dir,
      pgDataDir: path.join(dir, 'pg'),
      async stop() {
        await embedded.stop();
        await rm(dir, { recursive: true, force: true });
        process.off('exit', removeOnExit);
      },
    };
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}
