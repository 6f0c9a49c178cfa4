// This server's side of functions, over the runtime the composition root supervises: the
// in-memory table of active functions the invocation proxy reads (no database read per call), and
// keeping the runtime in step with PostgreSQL: every function on each (re)start, and changes from
// any server through LISTEN plinth_functions (slug) and plinth_secrets (any payload: reload the
// environment). Created by the functions plugin; closing it stops listening.
import type { RuntimeLog, RuntimeSupervisor } from '../../platform/functions-runtime/supervisor.js';
import type { Deps } from '../../deps.js';
import { followSecretChanges, readFunctionEnvironment } from '../secrets/index.js';
import { findFunction, listActiveFunctions, type FunctionRow } from './functions.repo.js';
import { createRuntimeClient, type DeployResult, type RuntimeClient } from './runtime-client.js';

export const FUNCTIONS_CHANNEL = 'plinth_functions';
/** Beside SVC_BASE_URL (api-contract B.5.3, B.6.2); the anon key is ANON_KEY on both platforms. */
const REFERENCE_BASE_URL_NAMES = ['BACKEND_INTERNAL_URL', 'INSFORGE_BASE_URL', 'INSFORGE_INTERNAL_URL'];

export interface ActiveFunction {
  verifyJwt: boolean;
  version: number;
}

export interface FunctionsHost {
  runtime: RuntimeSupervisor;
  client: RuntimeClient;
  /** The active function of a slug, as this server knows it. */
  lookup(slug: string): ActiveFunction | undefined;
  /** Deploys one version to this server's runtime; 'pending' when the runtime is not running. */
  deploy(row: FunctionRow): Promise<DeployResult | 'pending'>;
  /** Re-reads one function from the database and brings the table and the runtime in step. */
  syncSlug(slug: string): Promise<void>;
  /** Re-reads the secrets functions see and hands them to the running functions. */
  refreshSecrets(): Promise<void>;
  /** Stops listening for changes (the runtime itself stops with the deps). */
  close(): Promise<void>;
}

/** `log` hears deploys that fail and listeners that fail; the runtime reports through it too. */
export async function createFunctionsHost(
  deps: Pick<Deps, 'config' | 'sql' | 'keyring' | 'runtime'>,
  log: RuntimeLog,
): Promise<FunctionsHost> {
  const { config, sql, keyring, runtime } = deps;
  runtime.setLogger(log);
  const client = createRuntimeClient(runtime);
  const active = new Map<string, ActiveFunction>();
  /** What this server's runtime holds: slug → version. Emptied when the runtime restarts. */
  const deployed = new Map<string, number>();

  for (const row of await listActiveFunctions(sql))
    active.set(row.slug, { verifyJwt: row.verifyJwt, version: row.version });

  async function functionEnv(): Promise<Record<string, string>> {
    const env = await readFunctionEnvironment(sql, keyring);
    env.SVC_BASE_URL = config.apiBaseUrl;
    // The reference platform's names for the same address: its docs have functions read these.
    for (const name of REFERENCE_BASE_URL_NAMES) env[name] = config.apiBaseUrl;
    // Supabase's names, for createClient(Deno.env.get('SUPABASE_URL'), …); a secret of the same
    // name wins. The service key is the API key, which functions never see unless the admin stores
    // it as a secret named SUPABASE_SERVICE_ROLE_KEY (docs/supabase-storage.md, functions).
    env.SUPABASE_URL ??= config.apiBaseUrl;
    if (env.ANON_KEY !== undefined) env.SUPABASE_ANON_KEY ??= env.ANON_KEY;
    return env;
  }

  async function deploy(row: FunctionRow): Promise<DeployResult | 'pending'> {
    if (runtime.port === null) return 'pending';
    if (deployed.get(row.slug) === row.version) return { ok: true };
    const result = await client.deploy(row.slug, row.version, row.code);
    if (result.ok) deployed.set(row.slug, row.version);
    return result;
  }

  async function syncSlug(slug: string): Promise<void> {
    const row = await findFunction(sql, slug);
    if (row?.status === 'active') {
      active.set(slug, { verifyJwt: row.verifyJwt, version: row.version });
      const result = await deploy(row);
      if (result !== 'pending' && !result.ok)
        log('error', `function ${slug} v${row.version} failed to load: ${result.message}`);
      return;
    }
    active.delete(slug);
    if (deployed.delete(slug) && runtime.port !== null) await client.remove(slug);
  }

  /**
   * Hands the secrets to the runtime one push at a time, each read when its turn comes. Two pushes
   * at once (a restart's and a secret change's) could land in either order, and the environment
   * read before the change could win: the change was lost until the next one.
   */
  let envPushes: Promise<void> = Promise.resolve();
  function pushEnvironment(): Promise<void> {
    const push = envPushes.then(async () => {
      if (runtime.port === null) return; // the ready hook pushes again on start
      await client.setEnv(await functionEnv());
    });
    envPushes = push.catch(() => {});
    return push;
  }

  runtime.onReady(async () => {
    deployed.clear();
    await pushEnvironment();
    for (const row of await listActiveFunctions(sql)) {
      active.set(row.slug, { verifyJwt: row.verifyJwt, version: row.version });
      const result = await deploy(row);
      if (result !== 'pending' && !result.ok)
        log('error', `function ${row.slug} v${row.version} failed to load: ${result.message}`);
    }
  });

  const report = (what: string) => (err: unknown) => log('error', `${what} failed`, { err });
  const functionsListener = await sql.listen(
    FUNCTIONS_CHANNEL,
    (slug) => void syncSlug(slug).catch(report(`redeploying ${slug}`)),
  );
  const secretsListener = await followSecretChanges(
    sql,
    () => void pushEnvironment().catch(report('refreshing secrets')),
  );

  return {
    runtime,
    client,
    lookup: (slug) => active.get(slug),
    deploy,
    syncSlug,
    refreshSecrets: pushEnvironment,
    async close() {
      // UNLISTEN on a connection the database already closed fails; the listener is gone anyway.
      await functionsListener.unlisten().catch(() => {});
      await secretsListener.unlisten().catch(() => {});
    },
  };
}
