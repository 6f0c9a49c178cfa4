// The realtime engine as other transports see it (Supabase's Phoenix protocol): the socket
// server's presence, admission (socket caps and shared event budgets), credential resolver and
// refusal counters, and a place to attach a sink that the same delivery feeds. Found by the HTTP
// server it runs on, so a transport's plugin needs no extra wiring in app.ts.
import type { Server as HttpServer } from 'node:http';
import type { Deps } from '../../deps.js';
import type { DeliverySink } from './delivery.js';
import type { PresenceEvent, createPresence } from './presence.service.js';
import type { RealtimeRefusals } from './realtime-refusals.js';
import type { createSocketAdmission } from './socket-admission.js';
import type { CredentialResolver } from './socket-auth.js';

/** Channel names of Supabase topics: delivered to Phoenix sockets only (Socket.IO may not subscribe). */
export const SUPABASE_CHANNEL_PREFIX = 'supabase:';

export interface TransportSink extends DeliverySink {
  /** A presence event of any server (the same NOTIFY Socket.IO relays). */
  presence(event: PresenceEvent): void;
  /** This server was taken for dead: its members must join their channels again. */
  rejoin(): Promise<void>;
}

export interface RealtimeEngine {
  deps: Pick<Deps, 'sql' | 'clock' | 'config' | 'replicas' | 'bus'>;
  presence: ReturnType<typeof createPresence>;
  admission: ReturnType<typeof createSocketAdmission>;
  refusals: RealtimeRefusals;
  resolveCredential: CredentialResolver;
  /** True once the engine is stopping: new sockets are refused. */
  closing(): boolean;
  attach(sink: TransportSink): void;
}

const engines = new WeakMap<HttpServer, RealtimeEngine>();

export const registerEngine = (server: HttpServer, engine: RealtimeEngine) => engines.set(server, engine);

/** The engine running on `server`; throws when the realtime module is not registered first. */
export function realtimeEngineOf(server: HttpServer): RealtimeEngine {
  const engine = engines.get(server);
  if (!engine) throw new Error('The realtime module must be registered before a transport that uses its engine.');
  return engine;
}
