// Streaming backpressure end to end, over real sockets: a client that stops reading a chat stream
// makes Plinth stop reading the provider, so the provider's writes stall (res.write() false, no
// 'drain') after a bounded number of deltas, far below the stream's length; when the client reads
// again, every delta arrives intact and in order, then `done`. No sleeps: the provider peer reports
// the stall itself (a 'drain' that does not come for many event-loop turns).
import type { IncomingMessage } from 'node:http';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { freePort } from '../../harness/free-port.js';
import { floodText, startOpenAiPeer, type OpenAiPeer } from '../../harness/openai-peer.js';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

let peer: OpenAiPeer;
let t: TestApp;
let baseUrl: string;
let token: string;

beforeAll(async () => {
  peer = await startOpenAiPeer();
  t = await startTestApp({
    env: { OPENROUTER_API_KEY: peer.apiKey, OPENROUTER_BASE_URL: peer.baseUrl, OPENROUTER_MAX_RETRIES: '0' },
  });
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  await t.app.listen({ port, host: '127.0.0.1' });
  ({ accessToken: token } = await t.signUp());
  const configured = await t.request({
    method: 'PUT',
    url: '/api/ai/settings',
    headers: { 'x-api-key': t.apiKey },
    payload: { allowedModels: ['flood/m'], userDailyTokenBudget: 1_000_000 },
  });
  expect(configured.statusCode).toBe(200);
});
afterAll(async () => {
  await t.close();
  await peer.close();
});

/** POSTs a streamed chat completion with node:http and answers the response, not yet read. */
function streamChat(model: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request(`${baseUrl}/api/ai/chat/completion`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    });
    req.once('response', resolve);
    req.once('error', reject);
    req.end(JSON.stringify({ model, messages: [{ role: 'user', content: 'flood me' }], stream: true }));
  });
}

/** Splits SSE bytes into the events' JSON payloads as they complete. */
function sseParser() {
  let pending = '';
  return (bytes: Buffer): any[] => {
    pending += bytes.toString('utf8');
    const parts = pending.split('\n\n');
    pending = parts.pop() ?? '';
    return parts.map((part) => JSON.parse(part.replace(/^data: /, '')));
  };
}

// 1024 deltas of 64 KiB: 64 MiB, far more than every buffer between the two ends can hold (see the
// bound asserted below).
const DELTAS = 1024;
const DELTA_BYTES = 64 * 1024;

describe('streaming backpressure', () => {
  it('a client that stops reading stalls the provider; reading again delivers every delta, then done', async () => {
    const flood = peer.floodStream(DELTAS, DELTA_BYTES);
    let finished = false;
    void flood.finished.then(() => {
      finished = true;
    });
    const res = await streamChat('flood/m');
    // A failed test leaves no paused stream holding the server open.
    onTestFinished(() => {
      res.destroy();
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream');

    // Read the first bytes, then stop: the iterator pulls nothing more until next() is called.
    const reader = res[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    const parse = sseParser();
    const events: any[] = [];
    const first = await reader.next();
    expect(first.done).toBe(false);
    events.push(...parse(first.value));

    // The provider stalls: it is waiting for 'drain' that does not come, its stream unfinished.
    const outcome = await Promise.race([
      flood.stalled.then((written) => ({ stalled: written })),
      flood.finished.then(() => ({ stalled: undefined })),
    ]);
    const writtenAtStall = outcome.stalled;
    expect(writtenAtStall).toBeDefined();
    expect(finished).toBe(false);
    // What the provider can write is bounded by the buffers between it and the paused client, not by
    // the stream: per hop (provider -> Plinth, Plinth -> client) a kernel send buffer (tcp_wmem max,
    // 4 MiB here) and a receive buffer its reader left small (0.3-0.6 MiB measured), plus a few
    // 64 KiB chunks in Plinth's and the client's streams: 8-9 MiB, 128-145 deltas measured. A quarter
    // of the stream (256 deltas, 16 MiB) bounds that with room; buffering the stream would not stall.
    expect(writtenAtStall).toBeLessThan(DELTAS / 4);

    // Read again: the rest arrives, in order and intact, then usage and done.
    for (let next = await reader.next(); !next.done; next = await reader.next()) {
      events.push(...parse(next.value));
    }
    await flood.finished;
    expect(flood.written()).toBe(DELTAS);
    const chunks = events.filter((e) => 'chunk' in e).map((e) => e.chunk as string);
    expect(chunks.length).toBe(DELTAS);
    const damaged = chunks.filter((text, index) => text !== floodText(index, DELTA_BYTES));
    expect(damaged).toEqual([]);
    expect(events.slice(DELTAS).map((e) => Object.keys(e)[0])).toEqual(['tokenUsage', 'done']);
  });
});
