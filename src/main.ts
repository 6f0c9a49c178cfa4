// Entry point: configuration → no other server on the data directory → free ports → dependencies → app → listen. Owns SIGINT/SIGTERM:
// the first drains in-flight requests and stops everything in order (shutdown.ts), a second one
// (not a copy relayed within a second) exits at once. `npm start` runs `exec node …`: npm forwards
// its signals to its child, and without `exec` that child is a `sh` that dies of them unrelayed.
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { ConfigError, loadConfig, type Config } from './config.js';
import { chooseLogFormat, loggerOptions, startupWriter } from './core/log-options.js';
import { unavailablePorts, type PortClaim } from './platform/port-check.js';
import { clearStalePostmaster, DataDirInUseError, liveOwnerOfPostmaster } from './platform/stale-postmaster.js';
import type { Deps } from './deps.js';
import { UpgradeFailedError } from './upgrade.js';
import type { PlatformKeys } from './modules/secrets/index.js';

/** Signals this soon after the first are copies of it, not a request to stop at once. */
const REPEATED_SIGNAL_WINDOW_MS = 1_000;

/** Every port this server will take, with the setting that chose it. */
function portClaims(config: Config): PortClaim[] {
  const claims: PortClaim[] = [{ setting: 'PORT', host: config.host, port: config.port }];
  if (!config.databaseUrl) claims.push({ setting: 'EMBEDDED_PG_PORT', host: '127.0.0.1', port: config.embeddedPgPort });
  if (config.functions.runtimePort !== 0) {
    claims.push({ setting: 'FUNCTIONS_RUNTIME_PORT', host: '127.0.0.1', port: config.functions.runtimePort });
  }
  return claims;
}

/** Stops the start with one message on stderr: nothing was started or stopped yet. */
function refuseStart(message: string): never {
  console.error(message);
  process.exit(1);
}

function readConfig(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
}

async function printBanner(config: Config, keys: PlatformKeys, say: (lines: string[]) => void): Promise<void> {
  const { adminCredentials } = await import('./modules/auth/index.js');
  const admin = adminCredentials({ config, keys });
  const lines = [
    `Plinth is listening on ${config.apiBaseUrl} (API reference: ${config.apiBaseUrl}/api/reference)`,
    config.databaseUrl ? 'Database: DATABASE_URL' : `Database: embedded PostgreSQL, data in ${config.dataDir}`,
  ];
  // The keys were created by this start: the first one on this database.
  if (keys.created.length > 0) {
    lines.push(
      'First start: these credentials were generated and stored (encrypted) in the database.',
      `  Admin email:    ${admin.email}`,
      `  Admin password: ${config.adminPassword ? '(from ADMIN_PASSWORD)' : admin.password}`,
      `  API key:        ${keys.apiKey}`,
      `  Anon key:       ${keys.anonKey}`,
    );
  } else {
    lines.push(`Admin email: ${admin.email} (GET /api/metadata/api-key as admin shows the API key)`);
  }
  say(lines);
}

async function main(): Promise<void> {
  const config = readConfig();
  const logFormat = chooseLogFormat(config.logFormat, process.stdout.isTTY === true);
  const say = await startupWriter(logFormat);
  // Checks that touch nothing come first: another server on this data directory, then the ports.
  // Only then may a postmaster left by a killed server be stopped (it holds the database port).
  const pgDir = path.join(config.dataDir, 'pg');
  const owner = config.databaseUrl ? undefined : liveOwnerOfPostmaster(pgDir);
  if (owner !== undefined) refuseStart(new DataDirInUseError(pgDir, owner).message);
  const claims = portClaims(config);
  const isDatabasePort = (claim: PortClaim) => claim.setting === 'EMBEDDED_PG_PORT';
  const taken = await unavailablePorts(claims.filter((claim) => !isDatabasePort(claim)));
  if (taken.length > 0) refuseStart(taken.join('\n'));
  if (!config.databaseUrl) {
    try {
      await clearStalePostmaster(pgDir, { log: say });
    } catch (err) {
      if (err instanceof DataDirInUseError) refuseStart(err.message); // started meanwhile
      throw err;
    }
    const dbTaken = await unavailablePorts(claims.filter(isDatabasePort));
    if (dbTaken.length > 0) refuseStart(dbTaken.join('\n'));
  }

  // The rest of the server is loaded only now: a taken port is reported in a moment, not after
  // every module has been loaded.
  const [{ buildApp }, { createDeps }, { stopServer }, { loadPlatformKeys }, { createScheduler }] = await Promise.all([
    import('./app.js'),
    import('./deps.js'),
    import('./shutdown.js'),
    import('./modules/secrets/index.js'),
    import('./modules/schedules/index.js'),
  ]);
  let app: FastifyInstance | undefined;
  let deps: Deps | undefined;
  let stopping: string | undefined;
  let stoppingSince = 0;
  const stop = (signal: string) => {
    if (stopping) {
      // The same stop, relayed: Ctrl-C and systemd signal every process of the group, and npm/tsx
      // pass theirs on, so one stop arrives two or three times at once. Only a later one forces.
      if (Date.now() - stoppingSince < REPEATED_SIGNAL_WINDOW_MS) return;
      console.error(`${signal} again while stopping: exiting without waiting for requests in flight`);
      process.exit(1);
    }
    stopping = signal;
    stoppingSince = Date.now();
    // Before the app exists the start itself checks `stopping` after each step.
    if (app && deps) void stopServer(app, deps, signal).then((code) => process.exit(code));
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));

  let dbEvent = say;
  deps = await createDeps(config, {
    onDatabaseEvent: (message) => dbEvent(message),
    onReplicaChange: (replica, inRotation, why) =>
      dbEvent(`read replica ${replica} ${inRotation ? 'joined' : 'left'} the rotation: ${why}`),
    onBusEvent: (message) => dbEvent(message),
    onUpgrade: (line) => say(line),
  });
  if (stopping) {
    await deps.close();
    process.exit(0);
  }
  let built: FastifyInstance;
  let keys: PlatformKeys;
  try {
    keys = await loadPlatformKeys(deps);
    built = await buildApp(deps, { keys, logger: await loggerOptions(config.logLevel, logFormat) });
    dbEvent = (message) => built.log.warn(message);
    // Functions answer 502 until their runtime is up; the rest of the API does not wait for it.
    deps.runtime.start().catch((err) => built.log.error({ err }, 'the function runtime could not be started'));
    // Scheduled runs: no new claims once the stop begins; runs in flight get the grace period.
    const scheduler = createScheduler(deps, (level, message, extra) => built.log[level](extra ?? {}, message));
    let schedulerStopped: Promise<void> | undefined;
    built.addHook('preClose', async () => {
      schedulerStopped = scheduler.stop(config.shutdownGraceMs);
    });
    built.addHook('onClose', async () => schedulerStopped);
    await built.listen({ port: config.port, host: config.host });
    scheduler.start();
  } catch (err) {
    // Nothing may outlive a failed start (the embedded database runs in its own process group).
    await deps.close().catch(() => {});
    throw err;
  }
  app = built;
  if (stopping) return void stopServer(built, deps, stopping).then((code) => process.exit(code));
  await printBanner(config, keys, say);
}

main().catch((err) => {
  // A refused upgrade says what failed, what was kept and how to go back; its stack adds nothing.
  if (err instanceof UpgradeFailedError) console.error(err.message);
  else console.error('Plinth failed to start:', err);
  process.exit(1);
});
