// The provider's OpenAI-compatible API through the `openai` client (base URL OPENROUTER_BASE_URL,
// the stored key, cached for a minute), and its failures in the reference's error vocabulary.
import type OpenAI from 'openai';
import { AppError } from '../../core/errors.js';
import type { Deps } from '../../deps.js';
import { readProviderKey } from './ai-key.js';

/** Attribution headers the provider shows on its dashboard. */
const ATTRIBUTION = { 'HTTP-Referer': 'https://github.com/plinth', 'X-Title': 'Plinth' };

const missingKey = () =>
  new AppError(
    'AI_INVALID_API_KEY',
    'OpenRouter API key not configured. Configure Model Gateway settings or set OPENROUTER_API_KEY.',
    {
      status: 500,
      nextActions: 'Set OPENROUTER_API_KEY, or store a key with PUT /api/ai/openrouter/api-key (admin).',
    },
  );

/** Keys are read again after this long (as the reference platform does), or at once after a PUT here. */
const KEY_TTL_MS = 60_000;

export interface UpstreamClients {
  /** A client on the current stored key; throws 500 AI_INVALID_API_KEY when none is stored. */
  get(): Promise<OpenAI>;
  /** Drops the cached key (after the admin stored a new one). */
  forget(): void;
}

export function createUpstreamClients(deps: Pick<Deps, 'sql' | 'keyring' | 'config' | 'clock'>): UpstreamClients {
  let cached: { key: string; client: OpenAI; readAt: number } | undefined;
  return {
    async get() {
      const now = deps.clock.now().getTime();
      if (cached && now - cached.readAt < KEY_TTL_MS) return cached.client;
      const key = await readProviderKey(deps.sql, deps.keyring, 'openrouter');
      if (key === undefined) throw missingKey();
      // The SDK (a few MB resident) is loaded with the first client, not at start.
      const client =
        cached?.key === key
          ? cached.client
          : new (await import('openai')).default({
              apiKey: key,
              baseURL: deps.config.ai.baseUrl,
              maxRetries: deps.config.ai.maxRetries,
              // Until the answer (JSON) or the stream's start: within the request's own deadline.
              timeout: Math.max(1_000, deps.config.requestTimeoutMs - 500),
              defaultHeaders: ATTRIBUTION,
            });
      cached = { key, client, readAt: now };
      return client;
    },
    forget() {
      cached = undefined;
    },
  };
}

/** True when the call ended because the caller went away (our own abort). */
export async function isAbort(err: unknown): Promise<boolean> {
  if (err instanceof AppError) return false;
  const { APIUserAbortError } = await import('openai');
  return err instanceof APIUserAbortError;
}

/** An upstream failure as the client sees it (sdk-surface 2.8); anything else is passed on. */
export async function toAiError(err: unknown): Promise<unknown> {
  if (err instanceof AppError) return err;
  // Loaded already when the error came from the SDK (Node caches the module).
  const { APIConnectionError, APIError, APIUserAbortError } = await import('openai');
  if (err instanceof APIUserAbortError) {
    // Nobody reads this answer; 499 (as proxies log it) keeps it out of the error log.
    return new AppError('UPSTREAM_FAILURE', 'The caller went away; the provider call was cancelled.', {
      status: 499,
      nextActions: 'Keep the connection open until the answer arrives.',
      cause: err,
    });
  }
  if (err instanceof APIConnectionError) {
    return new AppError('AI_UPSTREAM_UNAVAILABLE', err.message, {
      nextActions: 'The AI provider could not be reached; retry later or check OPENROUTER_BASE_URL.',
      cause: err,
    });
  }
  if (!(err instanceof APIError) || err.status === undefined) return err;
  if (err.status === 402) {
    return new AppError('BILLING_INSUFFICIENT_BALANCE', 'AI credit limit reached.', {
      nextActions: "Add credits to the AI provider account of this project's key.",
      cause: err,
    });
  }
  if (err.status === 401 || err.status === 403) {
    return new AppError('AI_INVALID_API_KEY', 'AI provider authentication failed. Check your API key configuration.', {
      status: 401,
      nextActions: 'Store a valid provider key with PUT /api/ai/openrouter/api-key (admin).',
      cause: err,
    });
  }
  if (err.status === 429) {
    const retryAfter = err.headers?.get('retry-after');
    return new AppError('RATE_LIMITED', undefined, {
      nextActions: 'Wait before retrying, or use another model.',
      headers: retryAfter ? { 'retry-after': retryAfter } : undefined,
      cause: err,
    });
  }
  return new AppError('AI_UPSTREAM_UNAVAILABLE', err.message, {
    status: err.status >= 400 && err.status <= 599 ? err.status : 502,
    nextActions: err.status < 500 ? 'Check the model id and the request against the provider.' : 'Retry later.',
    cause: err,
  });
}
