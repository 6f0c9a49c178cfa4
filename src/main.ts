// Entry point: configuration → dependencies → app → listen, and a graceful shutdown that
// finishes in-flight requests before closing the pool and the embedded database.
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { createDeps } from './deps.js';
import { adminCredentials } from './modules/auth/index.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const deps = await createDeps(config);
  const app = await buildApp(deps);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    await app.close();
    await deps.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  // Functions answer 502 until their runtime is up; the rest of the API does not wait for it.
  deps.functions.start().catch((err) => app.log.error({ err }, 'the function runtime could not be started'));
  await app.listen({ port: config.port, host: config.host });
  const admin = adminCredentials(deps);
  const lines = [
    `Plinth is listening on ${config.apiBaseUrl} (API docs: ${config.apiBaseUrl}/api/docs)`,
    config.databaseUrl ? 'Database: DATABASE_URL' : `Database: embedded PostgreSQL, data in ${config.dataDir}`,
  ];
  if (deps.firstStart) {
    lines.push(
      'First start: these credentials were generated and stored (encrypted) in the database.',
      `  Admin email:    ${admin.email}`,
      `  Admin password: ${config.adminPassword ? '(from ADMIN_PASSWORD)' : admin.password}`,
      `  API key:        ${deps.keys.apiKey}`,
      `  Anon key:       ${deps.keys.anonKey}`,
    );
  } else {
    lines.push(`Admin email: ${admin.email} (GET /api/metadata/api-key as admin shows the API key)`);
  }
  console.log(lines.join('\n'));
}

main().catch((err) => {
  console.error('Plinth failed to start:', err);
  process.exit(1);
});
