// Debian's PgBouncer in transaction mode in front of the test PostgreSQL, on a free loopback port,
// as managed PostgreSQL offerings put one: each transaction gets whichever server connection is
// free, so nothing outside a transaction (a LISTEN, a session lock, a named prepared statement)
// survives. A small server pool makes that reuse constant. Stopped with close().
import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { freePort } from './free-port.js';

export interface PgBouncer {
  /** `databaseUrl` with its host and port replaced by the pooler's. */
  urlFor(databaseUrl: string): string;
  /** Transactions the pooler has carried to `database` so far (SHOW STATS on its admin console). */
  transactions(database: string): Promise<number>;
  close(): Promise<void>;
}

const BINARY = process.env.PGBOUNCER_BIN ?? '/usr/sbin/pgbouncer';

/** Starts PgBouncer for the PostgreSQL server of `serverUrl` (any database on it, by name). */
export async function startPgBouncer(serverUrl: string, options: { serverPoolSize?: number } = {}): Promise<PgBouncer> {
  const upstream = new URL(serverUrl);
  const port = await freePort();
  const dir = await mkdtemp(path.join(tmpdir(), 'plinth-pgbouncer-'));
  // PgBouncer refuses to run as root: it drops to the postgres user, which must read its files.
  await chmod(dir, 0o755);
  const login = [
    `user=${decodeURIComponent(upstream.username || 'postgres')}`,
    upstream.password ? `password=${decodeURIComponent(upstream.password)}` : '',
  ].join(' ');
  const ini = `[databases]
* = host=${upstream.hostname} port=${upstream.port || 5432} ${login}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = any
admin_users = ${decodeURIComponent(upstream.username || 'postgres')}
pool_mode = transaction
default_pool_size = ${options.serverPoolSize ?? 4}
max_client_conn = 500
server_reset_query =
ignore_startup_parameters = extra_float_digits,options
logfile =
pidfile =
`;
  const iniPath = path.join(dir, 'pgbouncer.ini');
  await writeFile(iniPath, ini, { mode: 0o644 });
  const args = process.getuid?.() === 0 ? ['-u', 'postgres', iniPath] : [iniPath];
  const child: ChildProcess = spawn(BINARY, args, { stdio: ['ignore', 'pipe', 'pipe'] });

  // Up when it logs that it listens; its log is kept for the error when it does not come up.
  let log = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      if (/process up|listening on/i.test(log)) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`pgbouncer exited (${code}) before listening:\n${log}`)));
  });

  const urlFor = (databaseUrl: string) => {
    const u = new URL(databaseUrl);
    u.hostname = '127.0.0.1';
    u.port = String(port);
    return u.toString();
  };

  return {
    urlFor,
    async transactions(database) {
      const console = postgres(urlFor(new URL('/pgbouncer', serverUrl).toString()), {
        max: 1,
        prepare: false,
        fetch_types: false,
        onnotice: () => {},
      });
      try {
        const rows = await console.unsafe('show stats').simple();
        const row = rows.find((r) => r.database === database);
        return Number(row?.total_xact_count ?? 0);
      } finally {
        await console.end();
      }
    },
    async close() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
