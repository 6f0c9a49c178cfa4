// Composition root of the infrastructure: the pool (on the configured or embedded database,
// migrated), the keyring and derived keys, the clock, the password hasher, the blob store and the
// function runtime's supervisor. Module pieces (platform keys, the functions host, services) are
// built by their modules in app.ts. Tests call this too, passing another clock; nothing here reads
// the environment.
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { hkdfSync } from 'node:crypto';
import path from 'node:path';
import type { Config } from './config.js';
import { systemClock, type Clock } from './core/clock.js';
import { createPool, routeSessionWorkTo, type Sql } from './core/db.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './platform/embedded-postgres.js';
import { randomHex } from './core/ids.js';
import { allowedOutboundOrigins } from './platform/outbound-http.js';
import { createKeyring, type Keyring } from './core/keyring.js';
import { readMigrationFiles, type MigrationFile } from './core/migrator.js';
import { createPasswordHasher, type PasswordHasher } from './core/password-hasher.js';
import { createBlobStore } from './platform/blob-store/index.js';
import type { BlobStore } from './platform/blob-store/blob-store.js';
import { createRuntimeSupervisor, type RuntimeSupervisor } from './platform/functions-runtime/supervisor.js';
import { upgradeSystemSchema } from './upgrade.js';
import postgres from 'postgres';
import { createReadRouter, type ReadRouter } from './platform/read-replicas/index.js';
import { type Bus, createBus } from './platform/bus/index.js';

export interface Deps {
  config: Config;
  sql: Sql;
  /**
   * A real PostgreSQL session for what a pooler in transaction mode cannot carry: session advisory
   * locks held across requests, an admin's SQL (which may change session settings), migrations,
   * LISTEN and logical replication (sql.listen and sql.subscribe are routed here). DATABASE_DIRECT_URL;
   * without it, the pool itself.
   */
  directSql: Sql;
  /** Where reads that may run on a replica run (DATABASE_REPLICA_URLS; the primary without). */
  replicas: ReadRouter;
  clock: Clock;
  keyring: Keyring;
  /** HMAC keys derived from the master key for values that must match across servers. */
  hmacKeys: {
    csrf: Buffer;
    refreshSuccessor: Buffer;
    emailSecrets: Buffer;
    storageUrls: Buffer;
    siteUploads: Buffer;
  } & {
    /** Backup archive signatures: the primary key's first (it signs), then the previous keys' (they verify). */
    backupArchives: Buffer[];
  };
  hasher: PasswordHasher;
  migrations: MigrationFile[];
  /** The supervised Deno function runtime (started by main.ts, stopped by close()). */
  runtime: RuntimeSupervisor;
  /** Where object bytes live (local disk or S3). */
  blobStore: BlobStore;
  /** How realtime events reach every server: PostgreSQL NOTIFY, or the broker of REALTIME_BUS_URL. */
  bus: Bus;
  close(): Promise<void>;
}

export interface DepsOptions {
  clock?: Clock;
  /** The embedded PostgreSQL's own output. */
  onDatabaseLog?: (line: string) => void;
  /** What the embedded database's supervisor does (stale servers stopped, restarts). */
  onDatabaseEvent?: (message: string) => void;
  /** What the upgrade step does (pending platform migrations, the backup before them). */
  onUpgrade?: (line: string) => void;
  /** Tests only: the platform migrations to apply instead of db/migrations (an older or a broken set). */
  migrationsDir?: string;
  /** A read replica leaving or rejoining the rotation, and why. */
  onReplicaChange?: (replica: string, inRotation: boolean, why: string) => void;
  /** A realtime bus broker's connection trouble (it reconnects by itself). */
  onBusEvent?: (message: string) => void;
}

const EMBEDDED_DB_NAME = 'plinth';
/** Connections on DATABASE_DIRECT_URL (session locks, admin SQL, migrations; LISTEN has one more of its own). */
const DIRECT_POOL_SIZE = 4;

async function resolveDatabase(
  config: Config,
  options: DepsOptions,
): Promise<{ url: string; embedded?: EmbeddedDatabase }> {
  if (config.databaseUrl) return { url: config.databaseUrl };
  const embedded = await startEmbeddedPostgres({
    dataDir: config.dataDir,
    port: config.embeddedPgPort,
    onLog: options.onDatabaseLog,
    onEvent: options.onDatabaseEvent,
    detached: true,
    // Logical change capture reads a replication slot: the embedded cluster then logs enough WAL.
    settings: config.realtimeChanges.mode === 'logical' ? { wal_level: 'logical' } : undefined,
  });
  const admin = postgres(embedded.url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await admin`select 1 from pg_database where datname = ${EMBEDDED_DB_NAME}`;
    if (!row) await admin.unsafe(`create database ${EMBEDDED_DB_NAME}`);
  } catch (err) {
    await embedded.stop();
    throw err;
  } finally {
    await admin.end();
  }
  const url = new URL(embedded.url);
  url.pathname = `/${EMBEDDED_DB_NAME}`;
  return { url: url.toString(), embedded };
}

/** The master key: from the environment, else a key file generated in the data directory. */
async function resolveMasterKey(config: Config): Promise<Buffer> {
  if (config.encryptionKeyHex) return Buffer.from(config.encryptionKeyHex, 'hex');
  const file = path.join(config.dataDir, 'encryption.key');
  if (!existsSync(file)) {
    await mkdir(config.dataDir, { recursive: true, mode: 0o711 });
    await writeFile(file, randomHex(32), { mode: 0o600, flag: 'wx' }).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'EEXIST') throw e;
    });
  }
  return Buffer.from((await readFile(file, 'utf8')).trim(), 'hex');
}

const derive = (master: Buffer, purpose: string): Buffer =>
  Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), `plinth ${purpose} v1`, 32));

export async function createDeps(config: Config, options: DepsOptions = {}): Promise<Deps> {
  const { url, embedded } = await resolveDatabase(config, options);
  const sql = createPool(url, {
    max: config.dbPoolSize,
    queueMax: config.dbPoolQueueMax,
    deadlineMs: config.requestTimeoutMs,
    shares: config.dbPoolShares,
    prepare: config.databasePooler !== 'transaction',
  });
  // Session work beside a pooled DATABASE_URL: a few connections (the upload locker holds one, a
  // running backup another), on their own guard.
  const directSql = config.databaseDirectUrl
    ? createPool(config.databaseDirectUrl, { max: DIRECT_POOL_SIZE, applicationName: 'plinth-direct' })
    : sql;
  routeSessionWorkTo(sql, directSql);
  let replicas: ReadRouter | undefined;
  let bus: Bus | undefined;
  try {
    const masterKey = await resolveMasterKey(config);
    const previousKeys = config.previousEncryptionKeysHex.map((hex) => Buffer.from(hex, 'hex'));
    const keyring = createKeyring(masterKey, previousKeys);
    const hmacKeys = {
      csrf: derive(masterKey, 'csrf'),
      refreshSuccessor: derive(masterKey, 'refresh-successor'),
      emailSecrets: derive(masterKey, 'email-secrets'),
      storageUrls: derive(masterKey, 'storage-urls'),
      siteUploads: derive(masterKey, 'site-uploads'),
      backupArchives: [masterKey, ...previousKeys].map((key) => derive(key, 'backup-archives')),
    };
    const clock = options.clock ?? systemClock;
    // The blob store first: the backup taken before an upgrade is stored in it.
    const blobStore = await createBlobStore(config.storage);
    const migrations = await readMigrationFiles(options.migrationsDir);
    await upgradeSystemSchema(directSql, migrations, {
      mode: config.upgradeBackup,
      log: options.onUpgrade ?? ((line) => console.log(line)),
      // Loaded only when an upgrade needs it.
      takeBackup: async () =>
        (await import('./modules/backups/index.js')).takeUpgradeBackup({
          sql: directSql,
          clock,
          blobStore,
          migrations,
          config,
          hmacKeys,
        }),
    });
    const hasher = await createPasswordHasher(config.passwordHashConcurrency, config.passwordHashQueueMax);
    const runtime = createRuntimeSupervisor({
      port: config.functions.runtimePort,
      timeoutMs: config.functions.timeoutMs,
      memoryMb: config.functions.memoryMb,
      healthIntervalMs: config.functions.healthIntervalMs,
      denoPath: config.functions.denoPath,
      cacheDir: path.join(config.dataDir, 'deno'),
      relayOrigins: allowedOutboundOrigins(config),
    });
    replicas = createReadRouter(sql, {
      ...config.replicas,
      pool: { max: config.dbPoolSize, queueMax: config.dbPoolQueueMax, deadlineMs: config.requestTimeoutMs },
      onChange: options.onReplicaChange,
    });
    const router = replicas;
    const onBusEvent = options.onBusEvent ?? ((message: string) => console.warn(message));
    bus = await createBus({
      broker: config.realtimeBus,
      sql,
      onError: (err) => onBusEvent(`realtime bus: ${err instanceof Error ? err.message : String(err)}`),
    });
    const openBus = bus;
    return {
      config,
      sql,
      directSql,
      replicas: router,
      clock,
      keyring,
      hmacKeys,
      hasher,
      migrations,
      runtime,
      blobStore,
      bus,
      // The order matters: the runtime, the pool, then the database they talk to (main.ts drains
      // the HTTP requests and closes the app, with its LISTEN connections, before calling this).
      // Every step runs even when one before it failed; the first failure is then thrown.
      async close() {
        const failures: unknown[] = [];
        const step = (work: () => Promise<unknown>) => work().catch((err: unknown) => void failures.push(err));
        await step(() => runtime.stop());
        await step(() => router.close());
        await step(() => openBus.close());
        await step(() => sql.end({ timeout: 5 }));
        if (directSql !== sql) await step(() => directSql.end({ timeout: 5 }));
        await step(async () => embedded?.stop());
        if (failures.length > 0) throw failures[0];
      },
    };
  } catch (err) {
    await replicas?.close();
    await bus?.close().catch(() => {});
    await sql.end({ timeout: 1 });
    if (directSql !== sql) await directSql.end({ timeout: 1 });
    await embedded?.stop();
    throw err;
  }
}
