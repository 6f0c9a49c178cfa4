// Supabase-style functions on /functions/v1/{slug}, run by the real Deno runtime and called with
// supabase-js functions.invoke: Deno.serve(handler) and export default {fetch}, the SUPABASE_* env,
// CORS preflights the function answers itself, methods, headers, status codes and streamed bodies.
import { createClient, FunctionsHttpError, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFunctionsApp, type FunctionsApp } from '../../harness/functions-app.js';

let t: FunctionsApp;
let anon: SupabaseClient;
let user: SupabaseClient;
const noRealtime = { transport: class {} as never };

// Supabase's quickstart function, as `supabase functions new hello` writes it.
const HELLO = `Deno.serve(async (req) => {
  const { name } = await req.json();
  const data = { message: \`Hello \${name}!\` };
  return new Response(JSON.stringify(data), { headers: { 'Content-Type': 'application/json' } });
});`;

// Supabase's documented CORS pattern (_shared/cors.ts inlined).
const CORS = `const corsHeaders = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'authorization, x-client-info, apikey, content-type',
};
Deno.serve(async (req) => {
  if (req.method === 'OPTIONS') return new Response('ok', { headers: corsHeaders });
  return new Response(JSON.stringify({ method: req.method }), {
    headers: { ...corsHeaders, 'Content-Type': 'application/json' },
  });
});`;

const ECHO = `export default {
  async fetch(req: Request) {
    const url = new URL(req.url);
    const body = req.method === 'GET' || req.method === 'HEAD' ? '' : await req.text();
    return new Response(JSON.stringify({ method: req.method, body, custom: req.headers.get('x-custom'), path: url.pathname }), {
      status: Number(url.searchParams.get('status') ?? 200),
      headers: { 'content-type': 'application/json', 'x-answer': 'yes' },
    });
  },
};`;

const ENV = `Deno.serve(() => Response.json({
  url: Deno.env.get('SUPABASE_URL') ?? null,
  anon: Deno.env.get('SUPABASE_ANON_KEY') ?? null,
  service: Deno.env.get('SUPABASE_SERVICE_ROLE_KEY') ?? null,
  apiKeyAnywhere: Object.values(Deno.env.toObject()).some((v) => v.startsWith('ik_')),
}));`;

const STREAM = `Deno.serve(() => {
  const body = new ReadableStream({
    async start(controller) {
      for (const part of ['one,', 'two,', 'three']) controller.enqueue(new TextEncoder().encode(part));
      controller.close();
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/plain' } });
});`;

beforeAll(async () => {
  t = await startFunctionsApp();
  for (const [slug, code, extra] of [
    ['hello', HELLO, {}],
    ['cors', CORS, { verifyJwt: false }],
    ['echo', ECHO, {}],
    ['env', ENV, {}],
    ['stream', STREAM, {}],
  ] as const) {
    const res = await t.deploy(slug, code, extra);
    expect(res.statusCode, res.body).toBe(201);
  }
  anon = createClient(t.baseUrl, t.anonKey, { realtime: noRealtime });
  const { accessToken } = await t.signUp();
  user = createClient(t.baseUrl, t.anonKey, { accessToken: async () => accessToken, realtime: noRealtime });
}, 60_000);
afterAll(() => t?.close());

describe('functions.invoke', () => {
  it('runs the Deno.serve quickstart with a user token and with the anon key', async () => {
    for (const client of [user, anon]) {
      const { data, error } = await client.functions.invoke('hello', { body: { name: 'Functions' } });
      expect(error).toBeNull();
      expect(data).toEqual({ message: 'Hello Functions!' });
    }
  });

  it('injects SUPABASE_URL and SUPABASE_ANON_KEY, never the service key', async () => {
    const { data } = await user.functions.invoke('env');
    expect(data).toEqual({ url: t.baseUrl, anon: t.anonKey, service: null, apiKeyAnywhere: false });
  });

  it('passes every method, a header and the body through; the function sees its own path', async () => {
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      const { data, error } = await user.functions.invoke('echo', {
        method,
        headers: { 'x-custom': 'hi' },
        ...(method === 'GET' ? {} : { body: 'payload' }),
      });
      expect(error).toBeNull();
      expect(data).toEqual({
        method,
        body: method === 'GET' ? '' : 'payload',
        custom: 'hi',
        path: '/functions/v1/echo',
      });
    }
  });

  it('passes status codes through: a 4xx is a FunctionsHttpError carrying the function’s response', async () => {
    const res = await fetch(`${t.baseUrl}/functions/v1/echo?status=201`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.anonKey}`, apikey: t.anonKey },
      body: 'x',
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-answer')).toBe('yes');
    const { data, error } = await user.functions.invoke('echo?status=418', { body: 'teapot' });
    expect(data).toBeNull();
    expect(error).toBeInstanceOf(FunctionsHttpError);
    const context = (error as FunctionsHttpError).context as Response;
    expect(context.status).toBe(418);
    expect(await context.json()).toMatchObject({ body: 'teapot' });
  });

  it('streams a ReadableStream body through', async () => {
    const res = await fetch(`${t.baseUrl}/functions/v1/stream`, { headers: { authorization: `Bearer ${t.anonKey}` } });
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    expect(await res.text()).toBe('one,two,three');
    const { data } = await user.functions.invoke('stream');
    expect(data).toBe('one,two,three');
  });

  it('a function that verifies JWTs refuses a call without a credential (401)', async () => {
    const res = await fetch(`${t.baseUrl}/functions/v1/hello`, { method: 'POST', body: '{"name":"x"}' });
    expect(res.status).toBe(401);
  });
});

describe('CORS, the Supabase way', () => {
  it('the preflight reaches the function, which answers with its corsHeaders', async () => {
    const res = await fetch(`${t.baseUrl}/functions/v1/cors`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, apikey, content-type, x-client-info',
      },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('ok');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-headers')).toBe('authorization, x-client-info, apikey, content-type');
  });

  it('the answer to the call itself carries the function’s CORS headers', async () => {
    const res = await fetch(`${t.baseUrl}/functions/v1/cors`, {
      method: 'POST',
      headers: { origin: 'https://app.example', authorization: `Bearer ${t.anonKey}` },
      body: '{}',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(await res.json()).toEqual({ method: 'POST' });
  });

  it('Plinth’s own /functions/{slug} still answers preflights itself', async () => {
    const res = await fetch(`${t.baseUrl}/functions/cors`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    expect(res.status).toBe(204);
  });
});
