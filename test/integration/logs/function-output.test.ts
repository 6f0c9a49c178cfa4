// What functions print, on the real Deno runtime: each console.* line (and an uncaught error with
// its stack) arrives in the live tail and in search as a functions entry of its slug, tagged with
// the request id of the invocation that printed it, even when invocations of one function overlap
// and print after awaiting. Control characters it prints (ANSI escapes, \r, other C0 and C1) are
// stored escaped, so no terminal that shows the logs obeys them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FunctionsApp, startFunctionsApp } from '../../harness/functions-app.js';

let t: FunctionsApp;
let admin: Record<string, string>;

beforeAll(async () => {
  t = await startFunctionsApp({ LOGS_FLUSH_INTERVAL_MS: '3600000' });
  admin = { 'x-api-key': t.apiKey };
});
afterAll(() => t?.close());

interface TailLine {
  eventMessage: string;
  body: { level: string; slug: string; requestId: string | null; message: string };
}

/** Opens the live tail (SSE) and resolves with its lines once `done` says enough arrived. */
async function tailUntil(query: string, done: (lines: TailLine[]) => boolean) {
  const abort = new AbortController();
  const res = await fetch(`${t.baseUrl}/api/logs/stream?${query}`, { headers: admin, signal: abort.signal });
  expect(res.status).toBe(200);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const lines: TailLine[] = [];
  const collected = (async () => {
    let text = '';
    for (;;) {
      const { value, done: ended } = await reader.read();
      if (ended) return lines;
      text += value;
      for (let end = text.indexOf('\n\n'); end !== -1; end = text.indexOf('\n\n')) {
        const event = text.slice(0, end);
        text = text.slice(end + 2);
        const data = event.split('\n').find((l) => l.startsWith('data: '));
        if (data) lines.push(JSON.parse(data.slice(6)));
      }
      if (done(lines)) {
        abort.abort();
        return lines;
      }
    }
  })().catch((err) => (abort.signal.aborted ? lines : Promise.reject(err)));
  return collected;
}

const CHATTY = `
export default async (req) => {
  const who = new URL(req.url).searchParams.get('who');
  console.log('hello from', who, { n: 1 });
  await new Promise((resolve) => setTimeout(resolve, 30));
  console.warn('after the timer', who);
  console.error('line\\tbreaks\\nkept', who);
  return new Response(who);
};`;

const HOSTILE = `
export default () => {
  console.log('\\u001b[2J\\u001b]0;owned\\u0007hidden\\rshown\\u009b31m\\tkept');
  return new Response('ok');
};`;

const THROWER = `
export default async () => {
  await Promise.resolve();
  throw new Error('boom from the function');
};`;

// Line 2 throws; line 6 catches and prints it, line 9 lets it go.
const STACKED = `function inner(n: number): never {
  throw new Error('kaboom ' + n);
}
export default async (req: Request) => {
  if (new URL(req.url).searchParams.has('caught')) {
    try { inner(1); } catch (err) { console.error('caught:', err); }
    return new Response('ok');
  }
  inner(2);
  return new Response('x');
};
`;

describe('function console output', () => {
  it('records each console line with its invocation, in the tail and in search', async () => {
    expect((await t.deploy('chatty', CHATTY, { verifyJwt: false })).statusCode).toBeLessThan(300);
    const printedLines = (lines: TailLine[]) =>
      lines.filter(
        (l) => l.body.requestId !== null && !l.eventMessage.startsWith('POST') && !l.eventMessage.startsWith('GET'),
      );
    const tail = tailUntil('source=functions&slug=chatty', (lines) => printedLines(lines).length >= 6);

    const [a, b] = await Promise.all(
      ['a', 'b'].map((who) =>
        fetch(`${t.baseUrl}/functions/chatty?who=${who}`, { headers: { 'x-request-id': `call-${who}` } }),
      ),
    );
    expect(await a!.text()).toBe('a');
    expect(await b!.text()).toBe('b');

    const printed = printedLines(await tail);
    for (const who of ['a', 'b']) {
      const mine = printed.filter((l) => l.body.requestId === `call-${who}`).map((l) => [l.body.level, l.body.message]);
      expect(mine).toEqual([
        ['info', `hello from ${who} { n: 1 }`],
        ['warn', `after the timer ${who}`],
        ['error', `line\tbreaks\nkept ${who}`],
      ]);
    }
    expect(printed.every((l) => l.body.slug === 'chatty')).toBe(true);
    expect(printed[0]!.eventMessage).toMatch(/^(info|warn|error) - /);

    await t.app.logs!.flush();
    const res = await t.request({
      method: 'GET',
      url: '/api/logs/search?source=functions&slug=chatty&request_id=call-a',
      headers: admin,
    });
    expect(res.statusCode).toBe(200);
    // Newest first: the three printed lines, and the invocation's own entry (method, status).
    const bodies = res.json.map((l: any) => l.body);
    expect(bodies.filter((l: any) => l.method === null).map((l: any) => l.message)).toEqual([
      'line\tbreaks\nkept a',
      'after the timer a',
      'hello from a { n: 1 }',
    ]);
    expect(bodies.find((l: any) => l.method === 'GET')).toMatchObject({ status: 200, slug: 'chatty' });
  });

  it('stores control characters escaped, tabs kept', async () => {
    expect((await t.deploy('hostile', HOSTILE, { verifyJwt: false })).statusCode).toBeLessThan(300);
    const tail = tailUntil('source=functions&slug=hostile', (lines) =>
      lines.some((l) => l.body.message.includes('shown')),
    );
    expect((await fetch(`${t.baseUrl}/functions/hostile`)).status).toBe(200);
    const printed = (await tail).find((l) => l.body.message.includes('shown'))!;
    expect(printed.body.message).toBe('\\u001b[2J\\u001b]0;owned\\u0007hidden\\u000dshown\\u009b31m\tkept');
    await t.app.logs!.flush();
    const res = await t.request({
      method: 'GET',
      url: '/api/logs/search?source=functions&slug=hostile',
      headers: admin,
    });
    const stored = res.json.map((l: any) => l.body.message).find((m: string) => m.includes('shown'));
    expect(stored).toBe(printed.body.message);
  });

  it('records an uncaught error with its stack', async () => {
    expect((await t.deploy('thrower', THROWER, { verifyJwt: false })).statusCode).toBeLessThan(300);
    const tail = tailUntil('source=functions&slug=thrower&level=error', (lines) =>
      lines.some((l) => l.body.message.includes('boom')),
    );
    const res = await fetch(`${t.baseUrl}/functions/thrower`, { headers: { 'x-request-id': 'call-thrower' } });
    expect(res.status).toBe(500);
    const lines = await tail;
    const uncaught = lines.find((l) => l.body.message.includes('boom'))!;
    expect(uncaught.body.requestId).toBe('call-thrower');
    expect(uncaught.body.message).toMatch(/^Error: boom from the function\n\s+at /);
  });

  it("names the function's file and lines in a stack, never the runtime's wrapper", async () => {
    expect((await t.deploy('stacked', STACKED, { verifyJwt: false })).statusCode).toBeLessThan(300);
    const tail = tailUntil('source=functions&slug=stacked&level=error', (lines) =>
      ['kaboom 1', 'kaboom 2'].every((text) => lines.some((l) => l.body.message.includes(text))),
    );
    expect((await fetch(`${t.baseUrl}/functions/stacked?caught`)).status).toBe(200);
    expect((await fetch(`${t.baseUrl}/functions/stacked`)).status).toBe(500);
    const lines = await tail;
    const message = (text: string) => lines.find((l) => l.body.message.includes(text))!.body.message;
    expect(message('kaboom 2')).toMatch(
      /^Error: kaboom 2\n {4}at inner \(functions\/stacked\.ts:2:9\)\n {4}at (Module\.)?default \(functions\/stacked\.ts:9:3\)$/,
    );
    expect(message('kaboom 1')).toMatch(
      /^caught: Error: kaboom 1\n {4}at inner \(functions\/stacked\.ts:2:9\)\n {4}at (Module\.)?default \(functions\/stacked\.ts:6:11\)$/,
    );
  });
});
