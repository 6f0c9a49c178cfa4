// Once per test run: a PostgreSQL server (embedded in a temporary directory, or the one at
// TEST_DATABASE_URL) and a template database with the system schema applied. Each test file
// clones the template into a database of its own.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/platform/embedded-postgres.js';
import { createPool } from '../../src/core/db.js';
import { migrate } from '../../src/core/migrator.js';
import { withDatabase } from './database-url.js';
import { freePort } from './free-port.js';

declare module 'vitest' {
  export interface ProvidedContext {
    serverUrl: string;
    templateDb: string;
    runId: string;
  }
}

export default async function setup(project: TestProject) {
  const runId = `${process.pid}_${Date.now().toString(36)}`;
  let embedded: EmbeddedDatabase | undefined;
  let dataDir: string | undefined;
  let serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    dataDir = await mkdtemp(path.join(tmpdir(), 'plinth-test-'));
    embedded = await startEmbeddedPostgres({ dataDir, port: await freePort(), persistent: false });
    serverUrl = embedded.url;
  }
  const templateDb = `plinth_tpl_${runId}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${templateDb}`);
  const template = createPool(withDatabase(serverUrl, templateDb), { max: 1 });
  await migrate(template);
  await template.end();

  project.provide('serverUrl', serverUrl);
  project.provide('templateDb', templateDb);
  project.provide('runId', runId);

  return async () => {
    const dbs = await admin<{ datname: string }[]>`
      select datname from pg_database where datname like ${`plinth_%${runId}%`}`;
    for (const { datname } of dbs) await admin.unsafe(`drop database if exists ${datname} with (force)`);
    await admin.end();
    await embedded?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  };
}
