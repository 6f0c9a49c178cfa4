// A primary and a streaming replica made with the PostgreSQL binaries on the machine (Debian's
// PostgreSQL 15): initdb in a temporary directory, the primary started with wal_level=replica, the
// replica cloned from it with `pg_basebackup -R` (primary_conninfo and standby.signal written for
// it), both on free loopback ports. The replica can be stopped, started again, and delayed
// (recovery_min_apply_delay) to inject lag.
import { execFile } from 'node:child_process';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { postgresOsUser, type RunAs } from '../../src/platform/postgres-binaries.js';
import { freePort } from './free-port.js';

const run = promisify(execFile);
const BIN = '/usr/lib/postgresql/15/bin';

export interface ReplicatedCluster {
  /** The primary's `plinth` database. */
  primaryUrl: string;
  /** The same database on the replica. */
  replicaUrl: string;
  stopReplica(): Promise<void>;
  startReplica(): Promise<void>;
  /** recovery_min_apply_delay on the replica (0: none), applied by a reload. */
  setApplyDelay(ms: number): Promise<void>;
  /** Resolves once the replica has replayed everything the primary has written by now. */
  caughtUp(): Promise<void>;
  close(): Promise<void>;
}

async function as(runAs: RunAs, file: string, args: string[]): Promise<void> {
  try {
    await run(`${BIN}/${file}`, args, { uid: runAs.uid, gid: runAs.gid, timeout: 120_000 });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`${file} ${args.join(' ')} failed: ${e.stderr || e.message}`);
  }
}

const SERVER_SETTINGS = (port: number, dir: string) =>
  [
    `-p ${port}`,
    "-c listen_addresses='127.0.0.1'",
    `-c unix_socket_directories='${dir}'`,
    '-c fsync=off',
    '-c full_page_writes=off',
    '-c max_connections=100',
    '-c wal_level=replica',
    '-c max_wal_senders=4',
  ].join(' ');

export async function startReplicatedCluster(): Promise<ReplicatedCluster> {
  const runAs = await postgresOsUser();
  const root = await mkdtemp(path.join(tmpdir(), 'plinth-replica-'));
  if (runAs.uid !== undefined) await chown(root, runAs.uid, runAs.gid!);
  const primaryDir = path.join(root, 'primary');
  const replicaDir = path.join(root, 'replica');
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  const pgCtl = (dir: string, port: number, action: 'start' | 'stop' | 'reload') =>
    as(
      runAs,
      'pg_ctl',
      action === 'start'
        ? ['-D', dir, '-w', '-t', '60', '-l', `${dir}.log`, '-o', SERVER_SETTINGS(port, root), 'start']
        : action === 'stop'
          ? ['-D', dir, '-w', '-m', 'fast', 'stop']
          : ['-D', dir, 'reload'],
    );

  await as(runAs, 'initdb', ['-D', primaryDir, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  await pgCtl(primaryDir, primaryPort, 'start');
  const serverUrl = `postgres://postgres@127.0.0.1:${primaryPort}/postgres`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe('create database plinth');
  await admin.end();
  await as(runAs, 'pg_basebackup', [
    '-h',
    '127.0.0.1',
    '-p',
    String(primaryPort),
    '-U',
    'postgres',
    '-D',
    replicaDir,
    '-R',
    '-X',
    'stream',
    '-c',
    'fast',
    '--no-sync',
  ]);
  await pgCtl(replicaDir, replicaPort, 'start');

  const primaryUrl = `postgres://postgres@127.0.0.1:${primaryPort}/plinth`;
  const replicaUrl = `postgres://postgres@127.0.0.1:${replicaPort}/plinth`;
  const primary = postgres(primaryUrl, { max: 1, onnotice: () => {} });
  const replica = postgres(replicaUrl, { max: 1, onnotice: () => {}, backoff: () => 0.05 });
  let replicaRunning = true;

  return {
    primaryUrl,
    replicaUrl,
    async stopReplica() {
      replicaRunning = false;
      await pgCtl(replicaDir, replicaPort, 'stop');
    },
    async startReplica() {
      await pgCtl(replicaDir, replicaPort, 'start');
      replicaRunning = true;
    },
    async setApplyDelay(ms) {
      await appendFile(path.join(replicaDir, 'postgresql.auto.conf'), `recovery_min_apply_delay = '${ms}ms'\n`);
      await pgCtl(replicaDir, replicaPort, 'reload');
      // pg_ctl reload only signals the postmaster. Once a session reads the new value, the
      // postmaster has re-read the file and signalled the startup process, which takes the
      // signal in before it replays another record: WAL written from now on waits.
      const deadline = Date.now() + 30_000;
      for (;;) {
        const [row] = await replica<{ ms: number }[]>`
          select setting::int as ms from pg_settings where name = 'recovery_min_apply_delay'`;
        if (row?.ms === ms) return;
        if (Date.now() > deadline) throw new Error(`the replica did not take recovery_min_apply_delay ${ms} ms`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
    async caughtUp() {
      const [{ lsn }] = await primary<[{ lsn: string }]>`select pg_current_wal_insert_lsn()::text as lsn`;
      const deadline = Date.now() + 30_000;
      for (;;) {
        const [row] = await replica<{ done: boolean }[]>`
          select pg_last_wal_replay_lsn() >= ${lsn}::pg_lsn as done`;
        if (row?.done) return;
        if (Date.now() > deadline) throw new Error(`the replica did not reach ${lsn} within 30 s`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
    async close() {
      await replica.end({ timeout: 1 });
      await primary.end({ timeout: 1 });
      if (replicaRunning) await pgCtl(replicaDir, replicaPort, 'stop').catch(() => {});
      await pgCtl(primaryDir, primaryPort, 'stop').catch(() => {});
      await rm(root, { recursive: true, force: true });
    },
  };
}
