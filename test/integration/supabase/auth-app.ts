// Plinth listening on a loopback port for @supabase/supabase-js (auth tests): clients as a Node
// app makes them (no persisted session, no timer refresh), the service_role client, and the
// SMTP peer when a file asks for one.
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { type AuthChangeEvent, createClient, type SupabaseClient } from '@supabase/supabase-js';
import { freePort } from '../../harness/free-port.js';
import { startSmtpPeer, type SmtpPeer } from '../../harness/smtp-peer.js';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

export interface SupabaseAuthApp {
  t: TestApp;
  url: string;
  smtp?: SmtpPeer;
  /** A client with the anon key, as an app's; `events` records what onAuthStateChange saw. */
  client(): { sb: SupabaseClient; events: AuthChangeEvent[] };
  /** A client with the service_role key (Plinth's API key). */
  admin(): SupabaseClient;
  close(): Promise<void>;
}

const nodeAuth = { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false } as const;
// Node 20 has no global WebSocket; supabase-js builds its realtime client eagerly.
const realtime = { transport: WebSocket as never };

export async function startSupabaseAuthApp(options: { smtp?: boolean; env?: Record<string, string> } = {}) {
  const smtp = options.smtp ? await startSmtpPeer() : undefined;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const t = await startTestApp({ env: { API_BASE_URL: url, ...smtp?.env, ...options.env } });
  await t.app.listen({ port, host: '127.0.0.1' });
  const app: SupabaseAuthApp = {
    t,
    url,
    smtp,
    client() {
      const sb = createClient(url, t.anonKey, { auth: { ...nodeAuth, flowType: 'pkce' }, realtime });
      const events: AuthChangeEvent[] = [];
      sb.auth.onAuthStateChange((event) => {
        if (event !== 'INITIAL_SESSION') events.push(event);
      });
      return { sb, events };
    },
    admin: () => createClient(url, t.apiKey, { auth: nodeAuth, realtime }),
    async close() {
      await t.close();
      await smtp?.close();
    },
  };
  return app;
}

export const newEmail = (tag = 'sb') => `${tag}-${randomBytes(4).toString('hex')}@example.com`;

/** The claims of an access token (not verified: the server checked it). */
export const claimsOf = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
