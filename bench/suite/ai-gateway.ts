// The AI gateway's added latency: the same chat request sent straight to a loopback
// OpenAI-compatible peer and through Plinth (signed-in user, guards and usage recording
// included), one at a time, alternating, in one run. Reports p50 of a JSON chat and p50 of the
// time to the first streamed token, each as Plinth / direct.
//   npx tsx bench/suite/ai-gateway.ts   (BENCH_SERVER_URL: a PostgreSQL server; a database is made and dropped)
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { withDatabase } from '../../test/harness/database-url.js';
import { startOpenAiPeer } from '../../test/harness/openai-peer.js';
import { startPlinth } from '../lib/plinth.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 300);
const WARMUP = 30;
const serverUrl = process.env.BENCH_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const body = (stream: boolean) =>
  JSON.stringify({ model: 'bench/model', messages: [{ role: 'user', content: 'hello bench' }], stream });

interface Target {
  url: string;
  headers: Record<string, string>;
  /** The request body for this target (the gateway's camelCase or the provider's own). */
  body(stream: boolean): string;
  /** The text that marks the first token in the stream. */
  firstToken: string;
}

async function timeJson(t: Target): Promise<number> {
  const start = performance.now();
  const res = await fetch(t.url, { method: 'POST', headers: t.headers, body: t.body(false) });
  await res.json();
  if (res.status !== 200) throw new Error(`${t.url} answered ${res.status}`);
  return performance.now() - start;
}

async function timeFirstToken(t: Target): Promise<number> {
  const start = performance.now();
  const res = await fetch(t.url, { method: 'POST', headers: t.headers, body: t.body(true) });
  if (res.status !== 200 || !res.body) throw new Error(`${t.url} answered ${res.status}`);
  const decoder = new TextDecoder();
  let seen = '';
  let first: number | undefined;
  for await (const part of res.body) {
    seen += decoder.decode(part as Uint8Array, { stream: true });
    if (first === undefined && seen.includes(t.firstToken)) first = performance.now() - start;
  }
  if (first === undefined) throw new Error(`no token from ${t.url}`);
  return first;
}

async function timeGet(url: string, headers: Record<string, string>): Promise<number> {
  const start = performance.now();
  const res = await fetch(url, { headers });
  await res.text();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return performance.now() - start;
}

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  const dbName = `plinth_bench_ai_${randomBytes(4).toString('hex')}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${dbName}`);
  const peer = await startOpenAiPeer();
  const plinth = await startPlinth(withDatabase(serverUrl, dbName), {
    OPENROUTER_API_KEY: peer.apiKey,
    OPENROUTER_BASE_URL: peer.baseUrl,
  });
  try {
    const signUp = await fetch(`${plinth.url}/api/auth/users?client_type=mobile`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bench@example.com', password: 'bench-password-1' }),
    });
    const { accessToken } = (await signUp.json()) as { accessToken: string };
    const json = { 'content-type': 'application/json' };
    // Users are off until the admin allows models and sets a budget (the reservation path is measured too).
    const configured = await fetch(`${plinth.url}/api/ai/settings`, {
      method: 'PUT',
      headers: { ...json, 'x-api-key': plinth.apiKey },
      body: JSON.stringify({ allowedModels: ['bench/model'], userDailyTokenBudget: 1_000_000_000 }),
    });
    if (!configured.ok) throw new Error(`AI settings: ${configured.status} ${await configured.text()}`);
    const direct: Target = {
      url: `${peer.baseUrl}/chat/completions`,
      headers: { ...json, authorization: `Bearer ${peer.apiKey}` },
      body: (stream) =>
        JSON.stringify({ ...JSON.parse(body(stream)), ...(stream ? { stream_options: { include_usage: true } } : {}) }),
      firstToken: '"content":"echo',
    };
    const gateway: Target = {
      url: `${plinth.url}/api/ai/chat/completion`,
      headers: { ...json, authorization: `Bearer ${accessToken}` },
      body,
      firstToken: '{"chunk":',
    };
    const samples = {
      jsonDirect: [] as number[],
      jsonGateway: [] as number[],
      ttftDirect: [] as number[],
      ttftGateway: [] as number[],
      oneQuery: [] as number[],
    };
    const currentSession = `${plinth.url}/api/auth/sessions/current`;
    for (let i = 0; i < WARMUP + ROUNDS; i++) {
      const keep = i >= WARMUP;
      // Alternating order, so neither side always runs on a warmer process.
      const pair = i % 2 === 0 ? ([direct, gateway] as const) : ([gateway, direct] as const);
      for (const target of pair) {
        const isDirect = target === direct;
        const j = await timeJson(target);
        const f = await timeFirstToken(target);
        if (!keep) continue;
        (isDirect ? samples.jsonDirect : samples.jsonGateway).push(j);
        (isDirect ? samples.ttftDirect : samples.ttftGateway).push(f);
      }
      const q = await timeGet(currentSession, { authorization: `Bearer ${accessToken}` });
      if (keep) samples.oneQuery.push(q);
    }
    const row = (name: string, d: number[], g: number[]) =>
      `| ${name} | ${p50(d).toFixed(2)} | ${p50(g).toFixed(2)} | ${(p50(g) / p50(d)).toFixed(2)} |`;
    console.log(`AI gateway added latency, ${ROUNDS} sequential requests each (after ${WARMUP} warm-up), one run`);
    console.log('| measure (p50, ms) | direct to peer | through Plinth | ratio |');
    console.log('| --- | --- | --- | --- |');
    console.log(row('JSON chat completion', samples.jsonDirect, samples.jsonGateway));
    console.log(row('time to first streamed token', samples.ttftDirect, samples.ttftGateway));
    // The floor of any Plinth route that reads PostgreSQL once, on this machine in this run: the
    // gateway reads the settings and reserves the call's worst case (one transaction) before calling
    // the provider, and settles the reservation after answering (off the answer's path).
    console.log(
      `| reference: GET /api/auth/sessions/current (one query) | – | ${p50(samples.oneQuery).toFixed(2)} | – |`,
    );
  } finally {
    await plinth.close();
    await peer.close();
    await admin.unsafe(`drop database if exists ${dbName} with (force)`);
    await admin.end();
  }
}

await main();
