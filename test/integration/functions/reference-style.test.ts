// Functions written for the reference platform, in its documented style, on Plinth's real Deno
// runtime: `createClient` (the official client) and `encodeBase64`/`decodeBase64` in scope, the
// client importable as 'npm:@insforge/sdk', BACKEND_INTERNAL_URL in Deno.env. They call back into
// records and storage as the caller (row-level security decides what each caller sees), and the
// client loads from the installed package: nothing is fetched.
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFunctionsApp, type FunctionsApp } from '../../harness/functions-app.js';
import { bearer } from '../../harness/test-app.js';

let t: FunctionsApp;
let denoDir = '';
const users: Record<'alice' | 'bob', { id: string; token: string }> = {
  alice: { id: '', token: '' },
  bob: { id: '', token: '' },
};

// The reference docs' quick start (legacy form): the caller's token handed to the client.
const LIST_NOTES = `module.exports = async function(request) {
  const authHeader = request.headers.get('Authorization');
  const userToken = authHeader ? authHeader.replace('Bearer ', '') : null;
  const client = createClient({
    baseUrl: Deno.env.get('BACKEND_INTERNAL_URL') || 'http://insforge:7130',
    edgeFunctionToken: userToken
  });
  const { data, error } = await client.database.from('notes').select('body').order('id');
  if (error) {
    return new Response(JSON.stringify({ error }), { status: 500, headers: { 'Content-Type': 'application/json' } });
  }
  return new Response(JSON.stringify({ bodies: data.map((row) => row.body) }), {
    headers: { 'Content-Type': 'application/json' }
  });
}`;

// The ES module form with the import the reference docs show: writes as the caller, then reads.
const ADD_NOTE = `import { createClient } from 'npm:@insforge/sdk';

export default async function(req: Request): Promise<Response> {
  const client = createClient({
    baseUrl: Deno.env.get('BACKEND_INTERNAL_URL'),
    edgeFunctionToken: req.headers.get('Authorization')?.replace('Bearer ', '')
  });
  const { data: me } = await client.auth.getCurrentUser();
  if (!me?.user) return new Response('Unauthorized', { status: 401 });
  const { body } = await req.json();
  const { data, error } = await client.database.from('notes').insert([{ body }]).select();
  if (error) return Response.json({ error }, { status: 400 });
  return Response.json({ userId: me.user.id, inserted: data });
}`;

// Storage round trip from inside the function, plus the base64 helpers in scope.
const FILES = `export default async function(req) {
  const client = createClient({
    baseUrl: Deno.env.get('BACKEND_INTERNAL_URL'),
    edgeFunctionToken: req.headers.get('Authorization')?.replace('Bearer ', '')
  });
  const { key, base64 } = await req.json();
  const bytes = decodeBase64(base64);
  const up = await client.storage.from('files').upload(key, new Blob([bytes], { type: 'application/octet-stream' }));
  if (up.error) return Response.json({ step: 'upload', statusCode: up.error.statusCode }, { status: 400 });
  const down = await client.storage.from('files').download(key);
  if (down.error) return Response.json({ step: 'download', statusCode: down.error.statusCode }, { status: 400 });
  const back = new Uint8Array(await down.data.arrayBuffer());
  return Response.json({ key: up.data.key, size: up.data.size, roundTrip: encodeBase64(back) });
}`;

const invoke = (slug: string, token: string | null, body?: unknown) =>
  fetch(`${t.baseUrl}/functions/${slug}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? bearer(token) : {}) },
    body: JSON.stringify(body ?? {}),
  });

beforeAll(async () => {
  denoDir = path.join(await mkdtemp(path.join(tmpdir(), 'plinth-ref-fn-')), 'data');
  t = await startFunctionsApp({
    PLINTH_DATA_DIR: denoDir,
    STORAGE_DIR: await mkdtemp(path.join(tmpdir(), 'plinth-ref-fn-storage-')),
  });
  denoDir = path.join(denoDir, 'deno');
  for (const name of ['alice', 'bob'] as const) {
    const { accessToken, user } = await t.signUp();
    users[name] = { id: user.id, token: accessToken };
  }
  await t.deps.sql.unsafe(`
    create table public.notes (
      id bigserial primary key,
      owner uuid default auth.uid(),
      body text not null,
      shared boolean not null default false
    );
    create policy notes_own on public.notes for all to authenticated
      using (owner = auth.uid()) with check (owner = auth.uid());
    create policy notes_shared on public.notes for select to anon, authenticated using (shared);
    insert into public.notes (owner, body, shared) values
      ('${users.alice.id}', 'alice private', false),
      ('${users.bob.id}', 'bob private', false),
      (null, 'everyone', true);
  `);
  const bucket = await t.request({
    method: 'POST',
    url: '/api/storage/buckets',
    headers: { 'x-api-key': t.apiKey },
    payload: { bucketName: 'files', isPublic: false },
  });
  expect(bucket.statusCode, bucket.body).toBe(201);
  for (const [slug, code] of [
    ['list-notes', LIST_NOTES],
    ['add-note', ADD_NOTE],
    ['files', FILES],
  ]) {
    const res = await t.deploy(slug!, code!);
    expect(res.statusCode, res.body).toBe(201);
  }
}, 120_000);
afterAll(() => t?.close());

describe('records as the caller', () => {
  it("a signed-in user's function reads only the rows row-level security lets that user see", async () => {
    const res = await invoke('list-notes', users.alice.token);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ bodies: ['alice private', 'everyone'] });
  });

  it('another user sees theirs', async () => {
    expect(await (await invoke('list-notes', users.bob.token)).json()).toEqual({ bodies: ['bob private', 'everyone'] });
  });

  it('an anon call sees what anon may', async () => {
    expect(await (await invoke('list-notes', t.anonKey)).json()).toEqual({ bodies: ['everyone'] });
  });

  it("a write through the imported client is the caller's, and only the caller reads it back", async () => {
    const res = await invoke('add-note', users.bob.token, { body: 'bob wrote this' });
    expect(res.status).toBe(200);
    const answer = await res.json();
    expect(answer).toEqual({
      userId: users.bob.id,
      inserted: [{ id: expect.any(Number), owner: users.bob.id, body: 'bob wrote this', shared: false }],
    });
    expect((await (await invoke('list-notes', users.bob.token)).json()).bodies).toContain('bob wrote this');
    expect((await (await invoke('list-notes', users.alice.token)).json()).bodies).not.toContain('bob wrote this');
  });

  it('the anon key is no user: the function answers 401 itself', async () => {
    const res = await invoke('add-note', t.anonKey, { body: 'nobody' });
    expect(res.status).toBe(401);
    expect(await t.deps.sql`select 1 from public.notes where body = 'nobody'`).toHaveLength(0);
  });
});

describe('functions calling functions', () => {
  it('client.functions.invoke from inside a function reaches the other one as the same caller', async () => {
    await t.deploy(
      'chain',
      `module.exports = async function (req) {
        const client = createClient({
          baseUrl: Deno.env.get('BACKEND_INTERNAL_URL'),
          edgeFunctionToken: req.headers.get('Authorization')?.replace('Bearer ', '')
        });
        const { data, error } = await client.functions.invoke('list-notes');
        return Response.json({ data, error });
      }`,
    );
    expect(await (await invoke('chain', users.alice.token)).json()).toEqual({
      data: { bodies: ['alice private', 'everyone'] },
      error: null,
    });
    expect((await (await invoke('chain', t.anonKey)).json()).data).toEqual({ bodies: ['everyone'] });
  });
});

describe('storage as the caller', () => {
  const bytes = Buffer.from([0, 1, 2, 250, 255, ...Buffer.from('héllo')]);

  it('uploads and downloads from inside the function; the object is the caller’s', async () => {
    const res = await invoke('files', users.alice.token, { key: 'alice/data.bin', base64: bytes.toString('base64') });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      key: 'alice/data.bin',
      size: bytes.length,
      roundTrip: bytes.toString('base64'),
    });
    // Outside the function: the owner reads the bytes, another user is refused by row-level security.
    const url = `${t.baseUrl}/api/storage/buckets/files/objects/alice/data.bin`;
    const own = await fetch(url, { headers: bearer(users.alice.token) });
    expect(own.status).toBe(200);
    expect(Buffer.from(await own.arrayBuffer())).toEqual(bytes);
    expect((await fetch(url, { headers: bearer(users.bob.token) })).status).toBe(404);
  });

  it("another user's function cannot replace it, and an anon call cannot upload", async () => {
    const bob = await invoke('files', users.bob.token, { key: 'alice/data.bin', base64: 'AA==' });
    expect(bob.status).toBe(400);
    expect(await bob.json()).toMatchObject({ step: 'upload' });
    const anon = await invoke('files', t.anonKey, { key: 'anon.bin', base64: 'AA==' });
    expect(anon.status).toBe(400);
    expect(await anon.json()).toMatchObject({ step: 'upload' });
  });
});

describe('the reference scope', () => {
  it('BACKEND_INTERNAL_URL and the reference names beside SVC_BASE_URL; ANON_KEY as on the reference', async () => {
    await t.deploy(
      'ref-env',
      `export default () => Response.json(Object.fromEntries(
        ['SVC_BASE_URL', 'BACKEND_INTERNAL_URL', 'INSFORGE_BASE_URL', 'INSFORGE_INTERNAL_URL', 'ANON_KEY', 'API_KEY']
          .map((k) => [k, Deno.env.get(k) ?? null])));`,
    );
    expect(await (await invoke('ref-env', t.anonKey)).json()).toEqual({
      SVC_BASE_URL: t.baseUrl,
      BACKEND_INTERNAL_URL: t.baseUrl,
      INSFORGE_BASE_URL: t.baseUrl,
      INSFORGE_INTERNAL_URL: t.baseUrl,
      ANON_KEY: t.anonKey,
      API_KEY: null,
    });
  });

  it('encodeBase64 and decodeBase64 as Deno std 0.224: strings as UTF-8, bytes, buffers, errors', async () => {
    await t.deploy(
      'b64',
      `module.exports = async function () {
        const attempt = (fn) => { try { return fn(); } catch (e) { return e.name + ': ' + e.message; } };
        return Response.json({
          text: encodeBase64('héllo ✓'),
          bytes: encodeBase64(new Uint8Array([0, 255, 128])),
          buffer: encodeBase64(new Uint8Array([1, 2, 3, 4]).buffer),
          empty: encodeBase64(''),
          decoded: Array.from(decodeBase64('AP+A')),
          decodedType: decodeBase64('AA==').constructor.name,
          unpadded: Array.from(decodeBase64('AQID')),
          badInput: attempt(() => encodeBase64(42)),
          badBase64: attempt(() => decodeBase64('***')).split(':')[0],
        });
      }`,
    );
    expect(await (await invoke('b64', t.anonKey)).json()).toEqual({
      text: Buffer.from('héllo ✓').toString('base64'),
      bytes: 'AP+A',
      buffer: 'AQIDBA==',
      empty: '',
      decoded: [0, 255, 128],
      decodedType: 'Uint8Array',
      unpadded: [1, 2, 3],
      badInput:
        'TypeError: The input must be a Uint8Array, a string, or an ArrayBuffer. Received a value of the type number.',
      badBase64: 'InvalidCharacterError',
    });
  });

  it('a syntax error still names its line in the stored code when the client is imported', async () => {
    const res = await t.deploy(
      'broken',
      "import { createClient } from 'npm:@insforge/sdk@^1.5.0';\n\nexport default (;",
    );
    expect(res.statusCode).toBe(400);
    expect(res.json).toMatchObject({ error: 'FUNCTION_DEPLOY_FAILED', message: expect.stringContaining('line 3') });
  });
});

describe('no network: the client comes from the installed package', () => {
  it('every spelling of the import is the bundled client, the same one as the createClient in scope', async () => {
    await t.deploy(
      'same-client',
      `import { createClient as a } from 'npm:@insforge/sdk';
      import { createClient as b } from "npm:@insforge/sdk@1.5.2";
      import * as c from '@insforge/sdk';
      export default async () => {
        const d = (await import('npm:@insforge/sdk@latest')).createClient;
        return Response.json({
          same: [a, b, c.createClient, d].every((f) => f === createClient),
          isFunction: typeof createClient,
          client: Object.keys(createClient({ baseUrl: 'http://127.0.0.1:9' })).sort(),
        });
      };`,
    );
    const res = await invoke('same-client', t.anonKey);
    expect(res.status).toBe(200);
    const answer = await res.json();
    expect(answer).toMatchObject({ same: true, isFunction: 'function' });
    expect(answer.client).toEqual(expect.arrayContaining(['auth', 'database', 'storage', 'functions', 'ai']));
  });

  it('Deno fetched and cached nothing: no npm package or remote module in its cache directory', async () => {
    expect(existsSync(denoDir)).toBe(true);
    const cached = await readdir(denoDir);
    // Deno makes an empty npm directory on start; a package it resolved would be stored in it.
    const npmFiles = cached.includes('npm') ? await readdir(path.join(denoDir, 'npm'), { recursive: true }) : [];
    expect(npmFiles).toEqual([]);
    expect(cached).not.toContain('remote');
    expect(cached).not.toContain('deps');
  });

  it('the bundle the runtime loads imports nothing from outside itself', () => {
    const bundle = readFileSync(path.resolve('runtime/generated/function-scope.js'), 'utf8');
    const specifiers = [...bundle.matchAll(/\b(?:from|import)\s*\(?\s*["']([^"']+)["']/g)].map((m) => m[1]);
    // Node's crypto is the client's fallback where Web Crypto is missing; Deno has Web Crypto.
    expect(specifiers.filter((s) => s !== 'crypto')).toEqual([]);
  });
});
