// A user's session in a Node app with the official client (@insforge/sdk). In Node the client has
// no cookie jar, so the browser's cookie refresh cannot work: create the client in server mode,
// keep the refresh token that sign-in returns, and refresh with it when a call answers
// AUTH_UNAUTHORIZED (the access token expired). Run by test/integration/sdk/node-user-session.test.ts.
import { createClient, type InsForgeClient } from '@insforge/sdk';

export interface NodeSessionOptions {
  baseUrl: string;
  anonKey: string;
  /** Called with each new refresh token (it rotates on every refresh): persist it if you need to. */
  onRefreshToken?: (refreshToken: string) => void | Promise<void>;
  /** Passed to createClient (tests use it to count requests). */
  fetch?: typeof fetch;
}

/** What every module call of the client resolves to. */
type Result = { error: unknown; status?: number };

/** The expired access token, whichever module reports it. */
function accessTokenExpired(result: Result): boolean {
  const code = (result.error as { error?: string; code?: string } | null)?.error;
  return code === 'AUTH_UNAUTHORIZED' || result.status === 401;
}

export class NodeUserSession {
  private refreshing: Promise<void> | undefined;

  private constructor(
    readonly client: InsForgeClient,
    private refreshToken: string,
    private readonly onRefreshToken: NodeSessionOptions['onRefreshToken'],
  ) {}

  /** Signs in with email and password; throws with the server's message when refused. */
  static async signIn(options: NodeSessionOptions, email: string, password: string): Promise<NodeUserSession> {
    // Server mode: tokens come back in the body (`client_type=mobile`), never as a cookie.
    const client = createClient({
      baseUrl: options.baseUrl,
      anonKey: options.anonKey,
      isServerMode: true,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    const { data, error } = await client.auth.signInWithPassword({ email, password });
    if (error || !data?.refreshToken) throw new Error(`sign-in failed: ${error?.message ?? 'no refresh token'}`);
    await options.onRefreshToken?.(data.refreshToken);
    return new NodeUserSession(client, data.refreshToken, options.onRefreshToken);
  }

  /**
   * Runs one call of the client; when the access token has expired, refreshes the session once
   * (one refresh for any number of calls waiting on it) and runs the call again.
   */
  async run<T extends Result>(call: (client: InsForgeClient) => PromiseLike<T>): Promise<T> {
    const first = await call(this.client);
    if (!accessTokenExpired(first)) return first;
    await this.refresh();
    return call(this.client);
  }

  /** Exchanges the kept refresh token for a new session; the old refresh token is spent. */
  refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      try {
        const { data, error } = await this.client.auth.refreshSession({ refreshToken: this.refreshToken });
        if (error || !data?.refreshToken) throw new Error(`the session ended: ${error?.message ?? 'no refresh token'}`);
        this.refreshToken = data.refreshToken;
        await this.onRefreshToken?.(data.refreshToken);
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }
}
