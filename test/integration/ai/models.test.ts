// GET /api/ai/models (admin): the provider's catalogue fetched without a credential, shaped as the
// reference answers it (ordered modalities, per-million prices and labels, vendor ranking), cached
// for an hour by the injected clock, the stale list served when the provider fails, else 503.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiPeer, type OpenAiPeer } from '../../harness/openai-peer.js';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';

let peer: OpenAiPeer;
let t: TestApp;
beforeAll(async () => {
  peer = await startOpenAiPeer();
  t = await startTestApp({ env: { OPENROUTER_BASE_URL: peer.baseUrl } });
});
afterAll(async () => {
  await t.close();
  await peer.close();
});

const models = () => t.request({ method: 'GET', url: '/api/ai/models', headers: { 'x-api-key': t.apiKey } });
const catalogueCalls = () => peer.requests.filter((r) => r.path === '/models');

describe('GET /api/ai/models', () => {
  it('first failure with nothing cached: 503 with Retry-After, and no new attempt for 5 s', async () => {
    peer.failModels(true);
    const res = await models();
    expect(res.statusCode).toBe(503);
    expect(res.json).toMatchObject({ error: 'AI_UPSTREAM_UNAVAILABLE', statusCode: 503 });
    expect(res.headers['retry-after']).toBe('5');
    const calls = catalogueCalls().length;
    peer.failModels(false);
    expect((await models()).statusCode).toBe(503);
    expect(catalogueCalls().length).toBe(calls);
    t.clock.advance(5_000);
  });

  it('answers the catalogue in the reference shape, fetched without a credential', async () => {
    const res = await models();
    expect(res.statusCode).toBe(200);
    expect(catalogueCalls().at(-1)!.headers.authorization).toBeUndefined();
    expect(res.json).toEqual([
      {
        id: 'openai/image-gen',
        created: 1,
        inputModality: ['text'],
        outputModality: ['image'],
        provider: 'openrouter',
        modelId: 'openai/image-gen',
        inputPrice: 5,
        inputPriceLabel: '$5.0 / M tokens',
      },
      {
        id: 'anthropic/claude',
        created: 2,
        inputModality: ['text', 'file'],
        outputModality: ['text'],
        provider: 'openrouter',
        modelId: 'anthropic/claude',
        inputPrice: 3,
        inputPriceLabel: '$3.0 / M tokens',
        outputPrice: 15,
        outputPriceLabel: '$15.0 / M tokens',
      },
      {
        id: 'google/gemini-flash',
        created: 3,
        inputModality: ['text', 'image', 'video'],
        outputModality: ['text'],
        provider: 'openrouter',
        modelId: 'google/gemini-flash',
        inputPrice: 0.1,
        inputPriceLabel: '$0.10 / M tokens',
        outputPrice: 0.4,
        outputPriceLabel: '$0.40 / M tokens',
      },
      {
        id: 'zeta/free-model',
        created: 4,
        inputModality: ['text'],
        outputModality: ['text'],
        provider: 'openrouter',
        modelId: 'zeta/free-model',
        inputPrice: 0,
        inputPriceLabel: 'Free',
        outputPrice: 0,
        outputPriceLabel: 'Free',
      },
    ]);
  });

  it('is cached for an hour; then a failing provider leaves the stale list in place', async () => {
    const calls = catalogueCalls().length;
    await Promise.all([models(), models()]);
    expect(catalogueCalls().length).toBe(calls);
    t.clock.advance(60 * 60 * 1000);
    peer.failModels(true);
    const stale = await models();
    expect(stale.statusCode).toBe(200);
    expect(stale.json).toHaveLength(4);
    expect(catalogueCalls().length).toBe(calls + 1);
    peer.failModels(false);
  });

  it('is admin only', async () => {
    const res = await t.request({
      method: 'GET',
      url: '/api/ai/models',
      headers: bearer((await t.signUp()).accessToken),
    });
    expect(res.statusCode).toBe(403);
  });
});
