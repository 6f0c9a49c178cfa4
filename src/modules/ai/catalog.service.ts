// GET /api/ai/models: the provider's catalogue, kept an hour per server; concurrent misses share
// one upstream call; on failure the stale list is served (for 5 s more), else 503 and no new
// attempt for 5 s.
import type OpenAI from 'openai';
import type { Clock } from '../../core/clock.js';
import { AppError } from '../../core/errors.js';
import type { CatalogModel } from './ai.schemas.js';
import { type ProviderModel, toCatalog } from './model-catalog.js';

const FRESH_MS = 60 * 60 * 1000;
const RETRY_MS = 5_000;
const FETCH_TIMEOUT_MS = 10_000;

export function createCatalogService(baseUrl: string, clock: Clock) {
  // Made on the first fetch: the `openai` SDK (a few MB resident) is not loaded at start.
  let client: OpenAI | undefined;
  let cached: { models: CatalogModel[]; until: number } | undefined;
  let failedUntil = 0;
  let pending: Promise<CatalogModel[]> | undefined;

  async function fetchCatalog(): Promise<CatalogModel[]> {
    if (!client) {
      const { default: OpenAISdk } = await import('openai');
      // The list needs no credential: the Authorization header is left out.
      client = new OpenAISdk({
        apiKey: 'unused',
        baseURL: baseUrl,
        maxRetries: 0,
        timeout: FETCH_TIMEOUT_MS,
        defaultHeaders: { Authorization: null },
      });
    }
    const page = await client.models.list({ query: { output_modalities: 'all' } });
    return toCatalog(page.data as unknown as ProviderModel[]);
  }

  async function refresh(now: number): Promise<CatalogModel[]> {
    try {
      const models = await fetchCatalog();
      cached = { models, until: now + FRESH_MS };
      return models;
    } catch (err) {
      if (cached) {
        cached = { models: cached.models, until: now + RETRY_MS };
        return cached.models;
      }
      failedUntil = now + RETRY_MS;
      throw unavailable(err);
    }
  }

  return {
    async list(): Promise<CatalogModel[]> {
      const now = clock.now().getTime();
      if (cached && now < cached.until) return cached.models;
      if (!cached && now < failedUntil) throw unavailable();
      pending ??= refresh(now).finally(() => {
        pending = undefined;
      });
      return pending;
    },
  };
}

const unavailable = (cause?: unknown) =>
  new AppError('AI_UPSTREAM_UNAVAILABLE', 'The model catalogue could not be fetched from the AI provider.', {
    status: 503,
    headers: { 'retry-after': String(RETRY_MS / 1000) },
    nextActions: 'Retry in a few seconds; check OPENROUTER_BASE_URL if it keeps failing.',
    cause,
  });

export type CatalogService = ReturnType<typeof createCatalogService>;
