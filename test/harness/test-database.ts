// What a test file needs to run Plinth in a process of its own (test/harness/server-process.ts): a
// database of this run and the credentials the servers start with. Apart from test-app.ts so that
// such files do not load the app's module graph they never run in their own process.
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { inject } from 'vitest';
import { withDatabase } from './database-url.js';

export const TEST_ADMIN = { email: 'admin@test.local', password: 'admin-password-123' };
export const TEST_ENCRYPTION_KEY = 'a'.repeat(64);

/** A database of this test run: a clone of the migrated template, or empty. */
export async function createDatabase(from: 'template' | 'empty' = 'template'): Promise<string> {
  const serverUrl = inject('serverUrl');
  const name = `plinth_t_${inject('runId')}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database ${name}${from === 'template' ? ` template ${inject('templateDb')}` : ''}`);
  } finally {
    await admin.end();
  }
  return withDatabase(serverUrl, name);
}
