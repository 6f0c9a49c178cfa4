// The AI gateway over HTTP against a loopback OpenAI-compatible peer: the exact SSE bytes and
// headers, a stream the provider breaks, the guards (anon switch, model allow-list, per-user and
// per-project daily token budgets with Retry-After from the injected clock), usage recording and
// the admin routes, and the errors of a missing key and an unreachable provider.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { freePort } from '../../harness/free-port.js';
import { PEER_USAGE, startOpenAiPeer, type OpenAiPeer } from '../../harness/openai-peer.js';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';

let peer: OpenAiPeer;
let t: TestApp;
let user: { token: string; id: string };

beforeAll(async () => {
  peer = await startOpenAiPeer();
  t = await startTestApp({
    env: { OPENROUTER_API_KEY: peer.apiKey, OPENROUTER_BASE_URL: peer.baseUrl, OPENROUTER_MAX_RETRIES: '0' },
  });
  const signed = await t.signUp();
  user = { token: signed.accessToken, id: signed.user.id };
});
afterAll(async () => {
  await t.close();
  await peer.close();
});

// Users are off until the admin allows models and sets a budget: every test starts configured.
const MODELS = ['openai/gpt-4o-mini', 'anthropic/claude', 'tools/m', 'broken/m', 'e/embed'];
const DEFAULTS = {
  allowAnon: false,
  userDailyTokenBudget: 1_000_000,
  projectDailyTokenBudget: null,
  allowedModels: MODELS,
};
const admin = { 'x-api-key': '' };
const settings = (payload: Record<string, unknown>) =>
  t.request({ method: 'PUT', url: '/api/ai/settings', headers: { 'x-api-key': t.apiKey }, payload });
beforeEach(async () => {
  admin['x-api-key'] = t.apiKey;
  expect((await settings(DEFAULTS)).statusCode).toBe(200);
});

const chat = (headers: Record<string, string>, body: Record<string, unknown> = {}) =>
  t.request({
    method: 'POST',
    url: '/api/ai/chat/completion',
    headers,
    payload: { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], ...body },
  });
const usage = (query = '') => t.request({ method: 'GET', url: `/api/ai/usage${query}`, headers: admin });
/** Seconds from the clock's now to the next UTC midnight. */
const toMidnight = () => {
  const now = t.clock.now();
  return Math.ceil((Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - now.getTime()) / 1000);
};

describe('streaming wire format', () => {
  it('answers text/event-stream with one compact `data:` line per event, usage, then done', async () => {
    const res = await chat(bearer(user.token), { stream: true, messages: [{ role: 'user', content: 'abcd' }] });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.body).toBe(
      'data: {"chunk":"echo:"}\n\n' +
        'data: {"chunk":" abcd"}\n\n' +
        'data: {"tokenUsage":{"promptTokens":9,"completionTokens":3,"totalTokens":12}}\n\n' +
        'data: {"done":true}\n\n',
    );
  });

  it('sends the assembled tool calls once, after the text, before done', async () => {
    const res = await chat(bearer(user.token), { stream: true, model: 'tools/m' });
    const events = res.body
      .split('\n\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line.replace(/^data: /, '')));
    expect(events.map((e) => Object.keys(e)[0])).toEqual(['tokenUsage', 'tool_calls', 'done']);
    expect(events[1].tool_calls.map((c: any) => c.function.arguments)).toEqual(['{"city":"Paris"}', '{"tz":"CET"}']);
  });

  it('a provider that breaks the stream yields an error event and no done', async () => {
    const res = await chat(bearer(user.token), { stream: true, model: 'broken/m' });
    expect(res.statusCode).toBe(200);
    const lines = res.body.split('\n\n').filter(Boolean);
    expect(lines[0]).toBe('data: {"chunk":"echo"}');
    expect(JSON.parse(lines.at(-1)!.slice(6))).toEqual({ error: true, message: expect.any(String) });
    expect(res.body).not.toContain('"done"');
  });
});

describe('anon callers', () => {
  it('are refused by default and admitted once the admin allows them', async () => {
    const refused = await chat(bearer(t.anonKey));
    expect(refused.statusCode).toBe(403);
    expect(refused.json).toMatchObject({ error: 'FORBIDDEN', nextActions: expect.stringContaining('allowAnon') });
    const streamed = await chat(bearer(t.anonKey), { stream: true });
    expect(streamed.statusCode).toBe(403);

    expect((await settings({ allowAnon: true })).json).toMatchObject({ allowAnon: true });
    expect((await chat(bearer(t.anonKey))).statusCode).toBe(200);
    const { json } = await usage('?subject=anon');
    expect(json.usage).toEqual([expect.objectContaining({ subject: 'anon', subjectKind: 'anon', requests: 1 })]);
  });
});

describe('model allow-list', () => {
  it('refuses other models with 400 and the allowed ones in nextActions; empty refuses users, not the admin', async () => {
    await settings({ allowedModels: ['openai/gpt-4o-mini', 'e/embed'] });
    const refused = await chat(bearer(user.token), { model: 'anthropic/claude' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json).toMatchObject({
      error: 'VALIDATION_ERROR',
      nextActions: expect.stringContaining('openai/gpt-4o-mini, e/embed'),
    });
    const embed = await t.request({
      method: 'POST',
      url: '/api/ai/embeddings',
      headers: bearer(user.token),
      payload: { model: 'other', input: 'x' },
    });
    expect(embed.statusCode).toBe(400);
    expect((await chat(bearer(user.token))).statusCode).toBe(200);
    await settings({ allowedModels: [] });
    expect((await chat(bearer(user.token), { model: 'anthropic/claude' })).statusCode).toBe(403);
    expect((await chat(admin, { model: 'anthropic/claude' })).statusCode).toBe(200);
  });
});

// A call reserves its estimated prompt (13 tokens for 'hi') plus maxTokens (3): 16, settled to the
// 12 the provider reports. A budget of 30 admits two calls (12 + 16 <= 30), not a third (24 + 16).
const small = { maxTokens: 3 };

describe('daily token budgets', () => {
  it('per user: 429 with Retry-After until the UTC day rolls, other users unaffected, the admin exempt', async () => {
    const spender = await t.signUp();
    await settings({ userDailyTokenBudget: 30 });
    expect((await chat(bearer(spender.accessToken), small)).statusCode).toBe(200);
    expect((await chat(bearer(spender.accessToken), { ...small, stream: true })).statusCode).toBe(200);
    const over = await chat(bearer(spender.accessToken), small);
    expect(over.statusCode).toBe(429);
    expect(over.json).toMatchObject({ error: 'TOO_MANY_REQUESTS', nextActions: expect.any(String) });
    expect(Number(over.headers['retry-after'])).toBe(toMidnight());
    const overStream = await chat(bearer(spender.accessToken), { ...small, stream: true });
    expect(overStream.statusCode).toBe(429);
    expect(overStream.json.error).toBe('TOO_MANY_REQUESTS');

    expect((await chat(bearer((await t.signUp()).accessToken), small)).statusCode).toBe(200);
    expect((await chat({ 'x-api-key': t.apiKey })).statusCode).toBe(200);

    t.clock.advance(toMidnight() * 1000);
    const signIn = await t.request({
      method: 'POST',
      url: '/api/auth/sessions?client_type=mobile',
      payload: { email: spender.email, password: spender.password },
    });
    expect((await chat(bearer(signIn.json.accessToken), small)).statusCode).toBe(200);
  });

  it('per project: every caller is refused once the project total cannot cover the call', async () => {
    const today = t.clock.now().toISOString().slice(0, 10);
    const before = (await usage(`?from=${today}&to=${today}`)).json.usage.reduce(
      (sum: number, r: any) => sum + r.inputTokens + r.outputTokens,
      0,
    );
    await settings({ projectDailyTokenBudget: before + 20 });
    expect((await chat(bearer((await t.signUp()).accessToken), small)).statusCode).toBe(200);
    const over = await chat({ 'x-api-key': t.apiKey }, small);
    expect(over.statusCode).toBe(429);
    expect(over.json.message).toContain("project's");
    expect(Number(over.headers['retry-after'])).toBe(toMidnight());
  });
});

describe('usage and settings (admin)', () => {
  it('records requests and tokens per user, day and model, JSON and streamed alike', async () => {
    const counted = await t.signUp();
    await chat(bearer(counted.accessToken));
    await chat(bearer(counted.accessToken), { stream: true });
    await t.request({
      method: 'POST',
      url: '/api/ai/embeddings',
      headers: bearer(counted.accessToken),
      payload: { model: 'e/embed', input: ['a', 'b'] },
    });
    const res = await usage(`?subject=${counted.user.id}`);
    expect(res.statusCode).toBe(200);
    const day = t.clock.now().toISOString().slice(0, 10);
    expect(res.json.to).toBe(day);
    expect(res.json.usage).toEqual([
      {
        day,
        subject: counted.user.id,
        subjectKind: 'user',
        model: 'e/embed',
        requests: 1,
        inputTokens: 4,
        outputTokens: 0,
      },
      {
        day,
        subject: counted.user.id,
        subjectKind: 'user',
        model: 'openai/gpt-4o-mini',
        requests: 2,
        inputTokens: 2 * PEER_USAGE.prompt_tokens,
        outputTokens: 2 * PEER_USAGE.completion_tokens,
      },
    ]);
  });

  it('reads and changes settings; bad values and ranges answer 400', async () => {
    const read = await t.request({ method: 'GET', url: '/api/ai/settings', headers: admin });
    expect(read.json).toMatchObject(DEFAULTS);
    const changed = await settings({ userDailyTokenBudget: 1000, allowedModels: ['a', 'a', 'b'] });
    expect(changed.json).toMatchObject({ userDailyTokenBudget: 1000, allowedModels: ['a', 'b'], allowAnon: false });
    expect((await settings({ userDailyTokenBudget: -1 })).statusCode).toBe(400);
    expect((await settings({ unknown: true })).statusCode).toBe(400);
    expect((await usage('?from=2026-02-02&to=2026-02-01')).statusCode).toBe(400);
    expect((await usage('?from=yesterday')).statusCode).toBe(400);
  });

  it('non-admin callers cannot read usage or change settings', async () => {
    const stranger = (await t.signUp()).accessToken;
    expect((await t.request({ method: 'GET', url: '/api/ai/usage', headers: bearer(stranger) })).statusCode).toBe(403);
    const put = await t.request({
      method: 'PUT',
      url: '/api/ai/settings',
      headers: bearer(stranger),
      payload: { allowAnon: true },
    });
    expect(put.statusCode).toBe(403);
  });
});

describe('provider key and reachability', () => {
  it('no key: 500 AI_INVALID_API_KEY; unreachable provider: 502 AI_UPSTREAM_UNAVAILABLE', async () => {
    const closedPort = await freePort();
    const bare = await startTestApp({
      env: { OPENROUTER_BASE_URL: `http://127.0.0.1:${closedPort}`, OPENROUTER_MAX_RETRIES: '0' },
    });
    try {
      const call = () =>
        bare.request({
          method: 'POST',
          url: '/api/ai/chat/completion',
          headers: { 'x-api-key': bare.apiKey },
          payload: { model: 'm', messages: [{ role: 'user', content: 'x' }], stream: true },
        });
      const missing = await call();
      expect(missing.statusCode).toBe(500);
      expect(missing.json).toMatchObject({
        error: 'AI_INVALID_API_KEY',
        message: expect.stringContaining('OPENROUTER_API_KEY'),
      });
      await bare.request({
        method: 'PUT',
        url: '/api/ai/openrouter/api-key',
        headers: { 'x-api-key': bare.apiKey },
        payload: { apiKey: 'sk-or-v1-somewhere-else' },
      });
      const unreachable = await call();
      expect(unreachable.statusCode).toBe(502);
      expect(unreachable.json).toMatchObject({ error: 'AI_UPSTREAM_UNAVAILABLE', nextActions: expect.any(String) });
    } finally {
      await bare.close();
    }
  });
});
