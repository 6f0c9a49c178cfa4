// AI spend against the daily budgets, through the real `openai` client path and a loopback
// provider: users are off until the admin configures models and a budget; a stream the caller cuts
// is charged its reservation; forty concurrent calls cannot pass a user's budget.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../harness/free-port.js';
import { PEER_USAGE, startOpenAiPeer, type OpenAiPeer } from '../../harness/openai-peer.js';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';

let peer: OpenAiPeer;
let t: TestApp;
let baseUrl: string;

beforeAll(async () => {
  peer = await startOpenAiPeer();
  t = await startTestApp({
    env: { OPENROUTER_API_KEY: peer.apiKey, OPENROUTER_BASE_URL: peer.baseUrl, OPENROUTER_MAX_RETRIES: '0' },
  });
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  await t.app.listen({ port, host: '127.0.0.1' });
});
afterAll(async () => {
  await t.close();
  await peer.close();
});

const settings = (payload: Record<string, unknown>) =>
  t.request({ method: 'PUT', url: '/api/ai/settings', headers: { 'x-api-key': t.apiKey }, payload });
const chat = (token: string, body: Record<string, unknown> = {}) =>
  t.request({
    method: 'POST',
    url: '/api/ai/chat/completion',
    headers: bearer(token),
    payload: { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], ...body },
  });
/** Tokens charged to a subject today, as the admin's usage report shows them. */
async function charged(subject: string): Promise<number> {
  const res = await t.request({
    method: 'GET',
    url: `/api/ai/usage?subject=${subject}`,
    headers: { 'x-api-key': t.apiKey },
  });
  return res.json.usage.reduce((sum: number, r: any) => sum + r.inputTokens + r.outputTokens, 0);
}

/** Starts a streamed chat over a real socket and cuts it once the first event arrived. */
function cutStream(token: string, model: string, maxTokens: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(`${baseUrl}/api/ai/chat/completion`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    });
    req.once('response', (res) => {
      if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`));
      res.once('data', () => {
        req.destroy();
        resolve();
      });
    });
    req.once('error', () => {});
    req.end(JSON.stringify({ model, maxTokens, stream: true, messages: [{ role: 'user', content: 'write a lot' }] }));
  });
}

describe('safe defaults', () => {
  it('users are refused with 403 and what to configure until models and a budget are set; the admin is not', async () => {
    await settings({ allowedModels: [], userDailyTokenBudget: null });
    const admin = await t.request({
      method: 'POST',
      url: '/api/ai/chat/completion',
      headers: { 'x-api-key': t.apiKey },
      payload: { model: 'anthropic/claude', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(admin.statusCode).toBe(200);
    const user = await t.signUp();
    const off = await chat(user.accessToken);
    expect(off.statusCode).toBe(403);
    expect(off.json).toMatchObject({ error: 'FORBIDDEN', nextActions: expect.stringContaining('allowedModels') });
    await settings({ allowedModels: ['openai/gpt-4o-mini'] });
    const noBudget = await chat(user.accessToken);
    expect(noBudget.statusCode).toBe(403);
    expect(noBudget.json.nextActions).toContain('userDailyTokenBudget');
    await settings({ userDailyTokenBudget: 100_000 });
    expect((await chat(user.accessToken)).statusCode).toBe(200);
  });
});

describe('reservations', () => {
  it('a stream the caller cuts after the first chunk is charged its reservation, so the budget runs out', async () => {
    await settings({ allowedModels: ['slow/m', 'openai/gpt-4o-mini'], userDailyTokenBudget: 2_500 });
    const user = await t.signUp();
    for (let i = 0; i < 2; i++) {
      const slow = peer.slowStream();
      await cutStream(user.accessToken, 'slow/m', 1_000);
      await slow.aborted;
    }
    await vi.waitFor(async () => expect(await charged(user.user.id)).toBeGreaterThanOrEqual(2 * 1_000));
    const over = await chat(user.accessToken, { maxTokens: 1_000 });
    expect(over.statusCode).toBe(429);
    expect(over.json).toMatchObject({ error: 'TOO_MANY_REQUESTS', nextActions: expect.stringContaining('maxTokens') });
  });

  it('forty concurrent calls stay within the budget; settled calls give back what they did not use', async () => {
    const budget = 200;
    await settings({ allowedModels: ['openai/gpt-4o-mini'], userDailyTokenBudget: budget });
    const user = await t.signUp();
    const answers = await Promise.all(Array.from({ length: 40 }, () => chat(user.accessToken, { maxTokens: 3 })));
    const ok = answers.filter((a) => a.statusCode === 200).length;
    expect(answers.every((a) => a.statusCode === 200 || a.statusCode === 429)).toBe(true);
    expect(ok).toBeGreaterThan(0);
    expect(ok * PEER_USAGE.total_tokens).toBeLessThanOrEqual(budget);
    expect(await charged(user.user.id)).toBeLessThanOrEqual(budget);
  });
});
