// GET /api/ai/usage/callers over HTTP, after real calls through a loopback OpenAI-compatible
// peer on two UTC days (the injected clock): per caller the sums of the per-day rows of
// /api/ai/usage, the heaviest first, the models used, the first and last day; the range and limit;
// a bad range is a 400 with nextActions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PEER_USAGE, startOpenAiPeer, type OpenAiPeer } from '../../harness/openai-peer.js';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';

let peer: OpenAiPeer;
let t: TestApp;
let alice: string;
let bob: string;
let aliceEmail: string;
let bobEmail: string;
let day0 = '';
let day1 = '';

const admin = () => ({ 'x-api-key': t.apiKey });
const chat = async (headers: Record<string, string>, model: string) => {
  const res = await t.request({
    method: 'POST',
    url: '/api/ai/chat/completion',
    headers,
    payload: { model, messages: [{ role: 'user', content: 'hi' }] },
  });
  expect(res.statusCode, res.body).toBe(200);
};
const callers = (query = '') => t.request({ method: 'GET', url: `/api/ai/usage/callers${query}`, headers: admin() });
const PER_CALL = PEER_USAGE.prompt_tokens + PEER_USAGE.completion_tokens;

beforeAll(async () => {
  peer = await startOpenAiPeer();
  t = await startTestApp({
    env: { OPENROUTER_API_KEY: peer.apiKey, OPENROUTER_BASE_URL: peer.baseUrl, OPENROUTER_MAX_RETRIES: '0' },
  });
  const allowed = await t.request({
    method: 'PUT',
    url: '/api/ai/settings',
    headers: admin(),
    payload: { allowedModels: ['openai/gpt-4o-mini', 'anthropic/claude'], userDailyTokenBudget: 1_000_000 },
  });
  expect(allowed.statusCode, allowed.body).toBe(200);
  const a = await t.signUp();
  const b = await t.signUp();
  alice = a.user.id;
  bob = b.user.id;
  aliceEmail = a.user.email;
  bobEmail = b.user.email;
  day0 = t.clock.now().toISOString().slice(0, 10);
  await chat(bearer(a.accessToken), 'openai/gpt-4o-mini');
  await chat(bearer(a.accessToken), 'openai/gpt-4o-mini');
  await chat(bearer(a.accessToken), 'anthropic/claude');
  await chat(bearer(b.accessToken), 'openai/gpt-4o-mini');
  t.clock.advance(86_400_000);
  day1 = t.clock.now().toISOString().slice(0, 10);
  await chat(admin(), 'anthropic/claude');
  await chat(admin(), 'anthropic/claude');
});
afterAll(async () => {
  await t?.close();
  await peer?.close();
});

describe('AI usage per caller', () => {
  it('sums each caller’s rows of the usage report, the heaviest first', async () => {
    const res = await callers();
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json.to).toBe(day1);
    expect(res.json.callers).toBe(3);
    const [first, second, third] = res.json.usage;
    expect(first).toEqual({
      subject: alice,
      subjectKind: 'user',
      email: aliceEmail,
      requests: 3,
      inputTokens: 3 * PEER_USAGE.prompt_tokens,
      outputTokens: 3 * PEER_USAGE.completion_tokens,
      models: ['anthropic/claude', 'openai/gpt-4o-mini'],
      firstDay: day0,
      lastDay: day0,
    });
    expect(second).toMatchObject({
      subjectKind: 'admin',
      email: null,
      requests: 2,
      models: ['anthropic/claude'],
      firstDay: day1,
    });
    expect(third).toMatchObject({
      subject: bob,
      subjectKind: 'user',
      email: bobEmail,
      requests: 1,
      inputTokens: 9,
      outputTokens: 3,
    });

    // The same numbers as the per-day rows it aggregates.
    const rows = (await t.request({ method: 'GET', url: '/api/ai/usage', headers: admin() })).json.usage as {
      subject: string;
      requests: number;
      inputTokens: number;
      outputTokens: number;
    }[];
    for (const caller of res.json.usage) {
      const mine = rows.filter((r) => r.subject === caller.subject);
      expect(caller.requests).toBe(mine.reduce((n, r) => n + r.requests, 0));
      expect(caller.inputTokens + caller.outputTokens).toBe(
        mine.reduce((n, r) => n + r.inputTokens + r.outputTokens, 0),
      );
    }
    expect(first.inputTokens + first.outputTokens).toBe(3 * PER_CALL);
  });

  it('keeps to the range and the limit, and counts the callers left out', async () => {
    const today = await callers(`?from=${day1}&to=${day1}`);
    expect(today.json.usage.map((u: { subjectKind: string }) => u.subjectKind)).toEqual(['admin']);
    const yesterday = await callers(`?from=${day0}&to=${day0}`);
    expect(yesterday.json.usage.map((u: { subject: string }) => u.subject)).toEqual([alice, bob]);
    const top = await callers('?limit=1');
    expect(top.json.usage.map((u: { subject: string }) => u.subject)).toEqual([alice]);
    expect(top.json.callers).toBe(3);
    const none = await callers('?from=2001-01-01&to=2001-01-31');
    expect(none.json).toEqual({ from: '2001-01-01', to: '2001-01-31', callers: 0, usage: [] });
  });

  it('refuses a range that ends before it starts, or a bad limit, with the next step', async () => {
    const backwards = await callers(`?from=${day1}&to=${day0}`);
    expect(backwards.statusCode).toBe(400);
    expect(backwards.json).toMatchObject({ error: 'VALIDATION_ERROR', nextActions: expect.stringContaining('from') });
    const badLimit = await callers('?limit=0');
    expect(badLimit.statusCode).toBe(400);
    expect(badLimit.json.error).toBe('VALIDATION_ERROR');
  });

  it('is the admin’s only', async () => {
    const user = await t.signUp();
    const res = await t.request({ method: 'GET', url: '/api/ai/usage/callers', headers: bearer(user.accessToken) });
    expect(res.statusCode).toBe(403);
  });

  it('keeps a deleted user’s usage, by id, without an email', async () => {
    const deleted = await t.request({
      method: 'DELETE',
      url: '/api/auth/users',
      headers: admin(),
      payload: { userIds: [bob] },
    });
    expect(deleted.statusCode, deleted.body).toBe(200);
    const res = await callers();
    expect(res.json.usage.find((u: { subject: string }) => u.subject === bob)).toMatchObject({
      subjectKind: 'user',
      email: null,
      requests: 1,
    });
    expect(res.json.usage.find((u: { subject: string }) => u.subject === alice).email).toBe(aliceEmail);
  });
});
