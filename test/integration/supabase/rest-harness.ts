// What the /rest/v1 tests share: supabase-js clients as an application builds them (only the URL
// and the key changed), and the Supabase-style migrations of test/fixtures/supabase applied as is
// through Plinth's migration route.
import { readFile } from 'node:fs/promises';
import { createClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import type { TestApp } from '../../harness/test-app.js';

const FIXTURES = new URL('../../fixtures/supabase/', import.meta.url);

/**
 * A supabase-js client: `key` is the project key (anon key or API key as service_role); `token`
 * a signed-in user's access token, sent as Bearer as supabase-js does after sign-in.
 */
export function supabaseClient(url: string, key: string, token?: string) {
  return createClient(url, key, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    global: token ? { headers: { Authorization: `Bearer ${token}` } } : {},
    // Node 20 has no global WebSocket, and supabase-js builds its realtime client up front.
    realtime: { transport: WebSocket as never },
  });
}

/** Applies `test/fixtures/supabase/<file>` through POST /api/database/migrations, unchanged. */
export async function applyFixture(t: Pick<TestApp, 'request' | 'apiKey'>, file: string) {
  const [version, rest] = file.replace(/\.sql$/, '').split(/_(.*)/s) as [string, string];
  const sql = await readFile(new URL(file, FIXTURES), 'utf8');
  const res = await t.request({
    method: 'POST',
    url: '/api/database/migrations',
    headers: { 'x-api-key': t.apiKey },
    payload: { version, name: rest.replaceAll('_', '-'), sql },
  });
  if (res.statusCode !== 201) throw new Error(`migration ${file} failed: ${res.statusCode} ${res.body}`);
  return res;
}
