// A PostgreSQL cluster of a test file's own with wal_level=logical (the suite's shared server is
// not: logical decoding needs its own), made with the embedded binaries in a temporary directory,
// and migrated databases on it for Plinth servers to use.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { createPool } from '../../src/core/db.js';
import { migrate } from '../../src/core/migrator.js';
import { startEmbeddedPostgres } from '../../src/platform/embedded-postgres.js';
import { withDatabase } from './database-url.js';
import { freePort } from './free-port.js';

export interface LogicalCluster {
  /** The cluster's `postgres` database. */
  url: string;
  /** A new database with the system schema applied; its URL. */
  createDatabase(): Promise<string>;
  stop(): Promise<void>;
}

export async function startLogicalCluster(settings: Record<string, string> = {}): Promise<LogicalCluster> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'plinth-logical-'));
  const db = await startEmbeddedPostgres({
    dataDir,
    port: await freePort(),
    persistent: false,
    settings: { wal_level: 'logical', max_replication_slots: '8', max_wal_senders: '8', ...settings },
  });
  let counter = 0;
  return {
    url: db.url,
    async createDatabase() {
      const name = `plinth_logical_${++counter}`;
      const admin = postgres(db.url, { max: 1, onnotice: () => {} });
      try {
        await admin.unsafe(`create database ${name}`);
      } finally {
        await admin.end();
      }
      const url = withDatabase(db.url, name);
      const pool = createPool(url, { max: 1 });
      try {
        await migrate(pool);
      } finally {
        await pool.end();
      }
      return url;
    },
    async stop() {
      await db.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
