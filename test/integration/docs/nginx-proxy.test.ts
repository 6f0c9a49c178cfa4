// The nginx site file of docs/self-hosting.md, run by Debian's nginx in front of a listening Plinth
// with the settings the page gives (https API_BASE_URL, TRUST_PROXY): HTTP redirects to HTTPS, the
// API answers over TLS, a 20 MB upload passes, realtime's WebSocket upgrade goes through, and a web
// sign-in's refresh cookie is Secure. Only ports and certificate paths differ from the page.
import { type ChildProcess, spawn } from 'node:child_process';
import { generateKeyPair, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { freePort } from '../../harness/free-port.js';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

const NGINX = process.env.NGINX_PATH ?? '/usr/sbin/nginx';
const HOST = 'api.example.com';
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

let t: TestApp;
let nginx: ChildProcess;
let httpPort: number;
let httpsPort: number;
let ca: string;

/** The first nginx block of the self-hosting guide. */
async function siteFromGuide(): Promise<string> {
  const guide = await readFile(path.join(ROOT, 'docs/self-hosting.md'), 'utf8');
  const block = /^```nginx\n([\s\S]*?)^```/m.exec(guide);
  if (!block) throw new Error('docs/self-hosting.md has no nginx block');
  return block[1]!;
}

/** Replaces one text of the page's file, failing when the page no longer has it. */
function replaceOnce(text: string, from: string, to: string): string {
  expect(text.split(from).length - 1, `the nginx block contains ${from} once`).toBe(1);
  return text.replace(from, to);
}

async function startNginx(dir: string, plinthPort: number) {
  const keyPair = await promisify(generateKeyPair)('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const pems = await generate([{ name: 'commonName', value: HOST }], { algorithm: 'sha256', keyPair });
  ca = pems.cert;
  await writeFile(path.join(dir, 'cert.pem'), pems.cert);
  await writeFile(path.join(dir, 'key.pem'), pems.private);
  let site = await siteFromGuide();
  site = replaceOnce(site, 'listen 80;', `listen 127.0.0.1:${httpPort};`);
  site = replaceOnce(site, 'listen 443 ssl http2;', `listen 127.0.0.1:${httpsPort} ssl http2;`);
  site = replaceOnce(site, `/etc/letsencrypt/live/${HOST}/fullchain.pem`, path.join(dir, 'cert.pem'));
  site = replaceOnce(site, `/etc/letsencrypt/live/${HOST}/privkey.pem`, path.join(dir, 'key.pem'));
  site = replaceOnce(site, 'http://127.0.0.1:7130', `http://127.0.0.1:${plinthPort}`);
  // What Debian's nginx.conf around sites-enabled/ gives, in a directory of the test's own.
  const temp = (name: string) => `${name}_temp_path ${path.join(dir, name)};`;
  const conf = `worker_processes 1;
error_log ${path.join(dir, 'error.log')} warn;
events { worker_connections 256; }
http {
  access_log off;
  ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join('\n  ')}
  ${site}
}
`;
  await writeFile(path.join(dir, 'nginx.conf'), conf);
  nginx = spawn(
    NGINX,
    ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-g', `daemon off; master_process off; pid ${dir}/nginx.pid;`],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  nginx.stderr!.on('data', (d) => (stderr += d));
  // Ready once the TLS port answers.
  for (let i = 0; ; i++) {
    if (nginx.exitCode !== null) throw new Error(`nginx exited: ${stderr}`);
    const up = await request('GET', '/api/health').then(
      () => true,
      () => false,
    );
    if (up) return;
    if (i > 200) throw new Error(`nginx did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A request to https://api.example.com through the proxy, trusting its certificate. */
function request(method: string, url: string, body?: Buffer | string, headers: Record<string, string> = {}) {
  return new Promise<Answer>((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port: httpsPort,
        servername: HOST,
        ca,
        method,
        path: url,
        headers: { host: HOST, ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

beforeAll(async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'plinth-nginx-'));
  await mkdir(path.join(dir, 'logs'));
  [httpPort, httpsPort] = [await freePort(), await freePort()];
  t = await startTestApp({
    env: { API_BASE_URL: `https://${HOST}`, TRUST_PROXY: 'true', STORAGE_DIR: path.join(dir, 'storage') },
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  await startNginx(dir, (t.app.server.address() as AddressInfo).port);
}, 90_000);
afterAll(async () => {
  nginx?.kill('SIGTERM');
  await t?.close();
});

describe('nginx in front of Plinth, as docs/self-hosting.md configures it', () => {
  it('redirects plain HTTP to HTTPS', async () => {
    const answer = await new Promise<http.IncomingMessage>((resolve, reject) =>
      http
        .get({ host: '127.0.0.1', port: httpPort, path: '/api/health', headers: { host: HOST } }, resolve)
        .on('error', reject),
    );
    answer.resume();
    expect(answer.statusCode).toBe(301);
    expect(answer.headers.location).toBe(`https://${HOST}/api/health`);
  });

  it('serves the API over TLS', async () => {
    const health = await request('GET', '/api/health/ready');
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toMatchObject({ status: 'ready' });
  });

  it('passes a 20 MB upload to storage', async () => {
    const bucket = await request(
      'POST',
      '/api/storage/buckets',
      JSON.stringify({ bucketName: 'big', isPublic: false }),
      {
        'x-api-key': t.apiKey,
        'content-type': 'application/json',
      },
    );
    expect(bucket.status, bucket.body).toBe(201);
    const bytes = randomBytes(20 * 1024 * 1024);
    const put = await request('PUT', '/api/storage/buckets/big/objects/large.bin', bytes, {
      'x-api-key': t.apiKey,
      'content-type': 'application/octet-stream',
    });
    expect(put.status, put.body).toBe(200);
    expect(JSON.parse(put.body)).toMatchObject({ key: 'large.bin', size: bytes.length });
  });

  it("upgrades realtime's WebSocket", async () => {
    // ws takes Node's TLS options (servername among them) beside its own.
    const options: WebSocket.ClientOptions & { servername: string } = { ca, servername: HOST, headers: { host: HOST } };
    const socket = new WebSocket(`wss://127.0.0.1:${httpsPort}/socket.io/?EIO=4&transport=websocket`, options);
    const first = await new Promise<string>((resolve, reject) => {
      socket.once('message', (data) => resolve(String(data)));
      socket.once('error', reject);
    });
    socket.close();
    // Engine.IO's open packet: the upgrade reached Plinth's Socket.IO server.
    expect(first).toMatch(/^0\{"sid":/);
  });

  it('a web sign-in gets a Secure refresh cookie (API_BASE_URL is https)', async () => {
    const user = await t.signUp();
    const session = await request(
      'POST',
      '/api/auth/sessions?client_type=web',
      JSON.stringify({ email: user.email, password: user.password }),
      { 'content-type': 'application/json' },
    );
    expect(session.status, session.body).toBe(200);
    const cookie = [session.headers['set-cookie'] ?? []].flat().find((c) => c.startsWith('svc_refresh_token='));
    expect(cookie).toMatch(/;\s*Secure/i);
  });
});
