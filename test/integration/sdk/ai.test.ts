// The official client's AI calls (ai.chat.completions.create JSON and streamed, ai.images.generate,
// ai.embeddings.create) against Plinth listening on a port, which talks to a loopback peer speaking
// the provider's OpenAI-compatible API: what the app gets back, first tokens before the stream
// ends, an app that stops reading mid-stream cancelling the provider call, and upstream errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PEER_IMAGE, PEER_TOOL_CALLS, startOpenAiPeer, type OpenAiPeer } from '../../harness/openai-peer.js';
import { startSdkApp, type SdkApp } from './sdk-app.js';

let peer: OpenAiPeer;
let s: SdkApp;
let accessToken: string;

beforeAll(async () => {
  peer = await startOpenAiPeer();
  s = await startSdkApp({
    env: { OPENROUTER_API_KEY: peer.apiKey, OPENROUTER_BASE_URL: peer.baseUrl, OPENROUTER_MAX_RETRIES: '0' },
  });
  ({ accessToken } = await s.t.signUp());
  // Users are off until the admin allows models and sets a budget.
  const models = ['openai/gpt-4o-mini', 'openai/text-embedding-3-small', 'openai/text-embedding-3-small-v1'];
  const configured = await s.t.request({
    method: 'PUT',
    url: '/api/ai/settings',
    headers: { 'x-api-key': s.t.apiKey },
    payload: {
      allowedModels: [
        ...models,
        'broken/m',
        'cited/m',
        'e',
        ...['400', '401', '402', '403', '429', '503'].map((s) => `error-${s}/m`),
        'image/m',
        'm',
        'slow/m',
        'tools/m',
        'tools/m:thinking',
      ],
      userDailyTokenBudget: 10_000_000,
    },
  });
  expect(configured.statusCode).toBe(200);
});
afterAll(async () => {
  await s.close();
  await peer.close();
});

/** A signed-in app's client (server mode, as a Node app holding the user's token). */
const ai = (extra: Parameters<SdkApp['client']>[0] = {}) => s.client({ accessToken, ...extra }).ai;
const lastPeerRequest = () => peer.requests.at(-1)!;

/** Every chunk of a streamed completion (the client types the stream loosely). */
async function collect(stream: unknown): Promise<any[]> {
  const out: any[] = [];
  for await (const c of stream as AsyncIterable<unknown>) out.push(c);
  return out;
}

describe('ai.chat.completions.create', () => {
  it('answers an OpenAI-style completion with the model and usage the provider reported', async () => {
    const res = await ai().chat.completions.create({
      model: 'openai/gpt-4o-mini',
      messages: [{ role: 'user', content: 'hello there' }],
    });
    expect(res).toMatchObject({
      object: 'chat.completion',
      model: 'openai/gpt-4o-mini',
      choices: [{ index: 0, message: { role: 'assistant', content: 'echo: hello there' }, finish_reason: 'stop' }],
      usage: { promptTokens: 9, completionTokens: 3, totalTokens: 12 },
    });
    const sent = lastPeerRequest();
    expect(sent.path).toBe('/chat/completions');
    expect(sent.headers.authorization).toBe(`Bearer ${peer.apiKey}`);
    expect(sent.body).toMatchObject({ model: 'openai/gpt-4o-mini', temperature: 0.7, max_tokens: 4096 });
    expect(sent.body.stream).toBeFalsy();
  });

  it('passes options the reference way (maxTokens, topP, thinking suffix, tools) and returns tool calls', async () => {
    const res = await ai().chat.completions.create({
      model: 'tools/m',
      messages: [{ role: 'user', content: 'weather?' }],
      maxTokens: 50,
      topP: 0.5,
      thinking: true,
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
      toolChoice: 'auto',
    });
    expect(res.model).toBe('tools/m:thinking');
    expect(res.choices[0]).toMatchObject({ finish_reason: 'tool_calls', message: { tool_calls: PEER_TOOL_CALLS } });
    expect(lastPeerRequest().body).toMatchObject({
      model: 'tools/m:thinking',
      max_tokens: 50,
      top_p: 0.5,
      tool_choice: 'auto',
      tools: [{ type: 'function', function: { name: 'get_weather' } }],
    });
  });

  it('carries url citations as annotations', async () => {
    const res = await ai().chat.completions.create({ model: 'cited/m', messages: [{ role: 'user', content: 'q' }] });
    expect(res.choices[0]?.message).toMatchObject({
      annotations: [
        { type: 'url_citation', urlCitation: { url: 'https://example.com/a', title: 'A', startIndex: 0, endIndex: 4 } },
      ],
    });
  });

  it('streams text chunks in order and stops at done', async () => {
    const stream = await ai().chat.completions.create({
      model: 'openai/gpt-4o-mini',
      messages: [{ role: 'user', content: 'stream me' }],
      stream: true,
    });
    const chunks = await collect(stream);
    expect(chunks.map((c) => c.choices[0]?.delta.content).join('')).toBe('echo: stream me');
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'openai/gpt-4o-mini')).toBe(true);
    expect(lastPeerRequest().body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('streams tool calls assembled from the provider deltas, once, with finish_reason tool_calls', async () => {
    const stream = await ai().chat.completions.create({
      model: 'tools/m',
      messages: [{ role: 'user', content: 'weather?' }],
      tools: [{ type: 'function', function: { name: 'get_weather' } }],
      stream: true,
    });
    const chunks = await collect(stream);
    const withTools = chunks.filter((c) => c.choices[0]?.delta.tool_calls);
    expect(withTools).toHaveLength(1);
    expect(withTools[0]?.choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      delta: { tool_calls: PEER_TOOL_CALLS },
    });
  });

  it('delivers the first token while the provider is still streaming', async () => {
    const slow = peer.slowStream();
    const stream = await ai().chat.completions.create({
      model: 'slow/m',
      messages: [{ role: 'user', content: 'take your time' }],
      stream: true,
    });
    const iterator = (stream as AsyncIterable<any>)[Symbol.asyncIterator]();
    await slow.firstChunkSent;
    const first = await iterator.next();
    expect(first.value?.choices[0]?.delta.content).toBe('echo: take');
    let ended = false;
    void slow.finished.then(() => {
      ended = true;
    });
    expect(ended).toBe(false); // the provider has not finished: the token came through on its own
    slow.release();
    const rest: string[] = [];
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      rest.push(next.value.choices[0]?.delta.content ?? '');
    }
    expect(rest.join('')).toBe(' your time');
  });

  it('an app that stops reading and aborts its request cancels the provider call', async () => {
    const slow = peer.slowStream();
    const controller = new AbortController();
    const abortable: typeof fetch = (input, init) => fetch(input, { ...init, signal: controller.signal });
    const stream = await ai({ fetch: abortable }).chat.completions.create({
      model: 'slow/m',
      messages: [{ role: 'user', content: 'never mind' }],
      stream: true,
    });
    const iterator = (stream as AsyncIterable<any>)[Symbol.asyncIterator]();
    await slow.firstChunkSent;
    expect((await iterator.next()).value?.choices[0]?.delta.content).toBe('echo: ne');
    controller.abort();
    await slow.aborted; // the peer saw its caller (Plinth) hang up before the stream ended
  });

  it('upstream failures reject with the reference codes (JSON) and throw the code (stream)', async () => {
    const call = (model: string) => ai().chat.completions.create({ model, messages: [{ role: 'user', content: 'x' }] });
    await expect(call('error-402/m')).rejects.toMatchObject({
      statusCode: 402,
      error: 'BILLING_INSUFFICIENT_BALANCE',
      nextActions: expect.any(String),
    });
    await expect(call('error-401/m')).rejects.toMatchObject({ statusCode: 401, error: 'AI_INVALID_API_KEY' });
    await expect(call('error-403/m')).rejects.toMatchObject({ statusCode: 401, error: 'AI_INVALID_API_KEY' });
    await expect(call('error-429/m')).rejects.toMatchObject({ statusCode: 429, error: 'RATE_LIMITED' });
    await expect(call('error-503/m')).rejects.toMatchObject({ statusCode: 503, error: 'AI_UPSTREAM_UNAVAILABLE' });
    await expect(call('error-400/m')).rejects.toMatchObject({ statusCode: 400, error: 'AI_UPSTREAM_UNAVAILABLE' });
    await expect(
      ai().chat.completions.create({ model: 'error-429/m', messages: [{ role: 'user', content: 'x' }], stream: true }),
    ).rejects.toThrow('RATE_LIMITED');
  });

  it('a provider that drops the stream midway ends the iteration early, without done', async () => {
    const stream = await ai().chat.completions.create({
      model: 'broken/m',
      messages: [{ role: 'user', content: 'cut' }],
      stream: true,
    });
    const chunks = await collect(stream);
    expect(chunks.map((c) => c.choices[0]?.delta.content)).toEqual(['echo:']);
  });

  it('validation failures reject with 400 before anything is sent upstream', async () => {
    const before = peer.requests.length;
    await expect(
      ai().chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }], temperature: 5 }),
    ).rejects.toMatchObject({ statusCode: 400, error: 'VALIDATION_ERROR' });
    expect(peer.requests.length).toBe(before);
  });
});

describe('ai.images.generate', () => {
  it('returns the generated image as b64_json with the text and usage', async () => {
    const res = await ai().images.generate({ model: 'image/m', prompt: 'a red dot' });
    expect(res.data).toEqual([{ b64_json: PEER_IMAGE.split(',')[1], content: 'image of a red dot' }]);
    expect(res.usage).toEqual({ total_tokens: 12, input_tokens: 9, output_tokens: 3 });
    expect(lastPeerRequest().body).toMatchObject({
      model: 'image/m',
      modalities: ['text', 'image'],
      messages: [{ role: 'user', content: 'a red dot' }],
    });
  });

  it('sends input images as image_url parts', async () => {
    await ai().images.generate({ model: 'image/m', prompt: 'paint it', images: [{ url: PEER_IMAGE }] });
    expect(lastPeerRequest().body.messages[0].content).toEqual([
      { type: 'text', text: 'paint it' },
      { type: 'image_url', image_url: { url: PEER_IMAGE } },
    ]);
  });
});

describe('ai.embeddings.create', () => {
  it('returns float vectors, the provider model and usage', async () => {
    const res = await ai().embeddings.create({ model: 'openai/text-embedding-3-small', input: ['ab', 'abcd'] });
    expect(res).toEqual({
      object: 'list',
      data: [
        { object: 'embedding', embedding: [0.2, 0.3, 0.4], index: 0 },
        { object: 'embedding', embedding: [0.4, 0.5, 0.6], index: 1 },
      ],
      model: 'openai/text-embedding-3-small-v1',
      usage: { prompt_tokens: 4, total_tokens: 4 },
    });
    expect(lastPeerRequest().body).toMatchObject({ encoding_format: 'float' });
  });

  it('passes base64 encoding and dimensions through', async () => {
    const res = await ai().embeddings.create({
      model: 'e',
      input: 'abc',
      encoding_format: 'base64',
      dimensions: 2,
    });
    expect(typeof res.data[0]?.embedding).toBe('string');
    expect(lastPeerRequest().body).toMatchObject({ encoding_format: 'base64', dimensions: 2 });
  });
});
