// The operator's way back in after losing the generated admin password (`plinth admin
// reset-password`, run in the server's folder with its environment): opens the server's database
// (DATABASE_URL, or the embedded one in PLINTH_DATA_DIR: the running server's, else started for
// the moment) with the server's master key, and replaces the stored admin password. Every server
// reads the stored password at the next admin sign-in, so no restart is needed.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import postgres from 'postgres';
import { ConfigError, loadConfig, type Config } from './config.js';
import { randomToken } from './core/ids.js';
import { createKeyring } from './core/keyring.js';
import { DEFAULT_ADMIN_EMAIL } from './modules/auth/index.js';
import { RESERVED, readSealedSecret, writeReservedSecret } from './modules/secrets/index.js';
import { startEmbeddedPostgres } from './platform/embedded-postgres.js';
import { liveOwnerOfPostmaster } from './platform/stale-postmaster.js';

/** The embedded cluster's database (deps.ts EMBEDDED_DB_NAME). */
const EMBEDDED_DB_NAME = 'plinth';

/** A refusal the operator can act on: one message, and what to do. */
export class ResetRefused extends Error {
  constructor(
    message: string,
    readonly nextActions: string,
  ) {
    super(message);
  }
}

export interface ResetResult {
  email: string;
  /** The new password (generated unless one was given). */
  password: string;
  /** How the database was reached. */
  database: string;
}

function masterKeys(config: Config): { primary: Buffer; previous: Buffer[] } {
  const previous = config.previousEncryptionKeysHex.map((hex) => Buffer.from(hex, 'hex'));
  if (config.encryptionKeyHex) return { primary: Buffer.from(config.encryptionKeyHex, 'hex'), previous };
  const file = path.join(config.dataDir, 'encryption.key');
  if (!existsSync(file))
    throw new ResetRefused(
      `No master key: PLINTH_ENCRYPTION_KEY is not set and ${file} does not exist.`,
      "Run the command in the server's folder with the server's environment (PLINTH_DATA_DIR, PLINTH_ENCRYPTION_KEY, DATABASE_URL).",
    );
  return { primary: Buffer.from(readFileSync(file, 'utf8').trim(), 'hex'), previous };
}

/** The running embedded server's port, from its postmaster.pid (line 4). */
function postmasterPort(pgDir: string): number {
  const lines = readFileSync(path.join(pgDir, 'postmaster.pid'), 'utf8').split('\n');
  return Number(lines[3]);
}

/** Runs `work` on the server's database: the configured one, the running embedded one, or one started for it. */
async function withDatabase<T>(config: Config, work: (sql: postgres.Sql, where: string) => Promise<T>): Promise<T> {
  const run = async (url: string, where: string) => {
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      return await work(sql, where);
    } finally {
      await sql.end();
    }
  };
  if (config.databaseUrl) return run(config.databaseUrl, 'DATABASE_URL');
  const pgDir = path.join(config.dataDir, 'pg');
  const passwordFile = path.join(config.dataDir, 'pg-password');
  if (!existsSync(path.join(pgDir, 'PG_VERSION')) || !existsSync(passwordFile))
    throw new ResetRefused(
      `No Plinth database in ${config.dataDir}.`,
      "Run the command in the server's folder (or set PLINTH_DATA_DIR, or DATABASE_URL for an external database).",
    );
  const password = readFileSync(passwordFile, 'utf8').trim();
  const urlAt = (port: number) => `postgres://postgres:${password}@127.0.0.1:${port}/${EMBEDDED_DB_NAME}`;
  const owner = liveOwnerOfPostmaster(pgDir);
  if (owner !== undefined) {
    return run(urlAt(postmasterPort(pgDir)), `the embedded database of the running server (pid ${owner})`);
  }
  const embedded = await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPgPort });
  try {
    return await run(urlAt(config.embeddedPgPort), `the embedded database in ${config.dataDir}`);
  } finally {
    await embedded.stop();
  }
}

/**
 * Replaces the stored admin password with `given` (or a generated one). Refused when the
 * environment sets ADMIN_PASSWORD (that one is in force), when `email` is not the admin's, and
 * when the database has no stored password yet (the server never started on it).
 */
export async function resetAdminPassword(
  env: Record<string, string | undefined>,
  options: { email?: string; password?: string } = {},
): Promise<ResetResult> {
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError)
      throw new ResetRefused(err.message, "Fix the server's configuration first (the same the server starts with).");
    throw err;
  }
  const email = config.adminEmail ?? DEFAULT_ADMIN_EMAIL;
  if (config.adminPassword !== undefined)
    throw new ResetRefused(
      'The admin password is set by ADMIN_PASSWORD in the environment, which overrides the stored one.',
      'Change ADMIN_PASSWORD where the server is configured and restart it (or remove it to use the stored password).',
    );
  if (options.email !== undefined && options.email.toLowerCase() !== email)
    throw new ResetRefused(
      `${options.email} is not the admin of this server: the admin is ${email}.`,
      `Run \`plinth admin reset-password ${email}\` (ADMIN_EMAIL sets the admin's email).`,
    );
  const password = options.password ?? randomToken(18);
  if (password.length < 8 || password.length > 4096)
    throw new ResetRefused(
      `The new password has ${password.length} characters.`,
      'Give one of 8 to 4096 characters, or none to have one generated.',
    );
  const { primary, previous } = masterKeys(config);
  const keyring = createKeyring(primary, previous);
  const database = await withDatabase(config, async (sql, where) => {
    await sql.begin(async (tx) => {
      const sealed = await readSealedSecret(tx, RESERVED.adminPassword).catch((err: { code?: string }) => {
        // 42P01: no secrets table, the platform schema was never applied here.
        if (err.code === '42P01') return undefined;
        throw err;
      });
      if (sealed === undefined)
        throw new ResetRefused(
          `${where} has no stored admin password: the server has not started on it yet.`,
          'Start the server once (it prints the generated admin password), or set ADMIN_PASSWORD.',
        );
      try {
        keyring.open(sealed);
      } catch {
        throw new ResetRefused(
          `The master key does not open the secrets stored in ${where}.`,
          "Give the server's own PLINTH_ENCRYPTION_KEY (or run in its folder, where its encryption.key is).",
        );
      }
      await writeReservedSecret(tx, RESERVED.adminPassword, keyring.seal(password), new Date());
    });
    return where;
  });
  return { email, password, database };
}
