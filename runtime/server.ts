// Plinth's function runtime (Deno): keeps one worker per deployed function version, relays each
// invocation to it with a deadline, and takes deployments and secrets from the Plinth server
// that started it. It never reads the database; it listens on loopback only.
//
// Started by src/platform/functions-runtime/supervisor.ts with network permission only, private addresses
// denied (and read/write on its Unix socket's path, revoked once the socket is bound, and on the
// relay's socket, through which functions reach Plinth's API). Its configuration (port, Unix socket,
// control token, timeout, the worker's source, the bundled reference scope) arrives as the first
// line of stdin; stdin then stays open, and its end (the server went away) ends the runtime.

interface RuntimeConfig {
  port: number;
  /** Where to listen besides the port (invocations come that way), or null. */
  socketPath: string | null;
  token: string;
  timeoutMs: number;
  workerSource: string;
  /** runtime/generated/function-scope.js: the official client and base64 helpers, or null. */
  scopeSource: string | null;
  /** The Plinth server's relay to its API and allowed origins (private addresses are denied). */
  relay: { socketPath: string; origins: string[] } | null;
}

type Env = Record<string, string>;

interface Pending {
  onResponse(res: Response): void;
  body: ReadableStreamDefaultController<Uint8Array> | null;
  /** Request-body chunks the worker asked for (it asks as the function reads). */
  bodyCredit: { credit: number; wake: (() => void) | null; closed: boolean };
  /** The worker finished the response: the deadline no longer applies. */
  finish(): void;
  fail(status: number, error: string, message: string): void;
}

async function readConfig(): Promise<RuntimeConfig> {
  const lines = Deno.stdin.readable.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  while (!text.includes('\n')) {
    const { done, value } = await lines.read();
    if (done) Deno.exit(1);
    text += value;
  }
  void (async () => {
    while (!(await lines.read()).done);
    Deno.exit(0);
  })();
  return JSON.parse(text.slice(0, text.indexOf('\n')));
}

const config = await readConfig();
const workerUrl = URL.createObjectURL(new Blob([config.workerSource], { type: 'application/typescript' }));
// Held in memory (blob URLs are shared with workers): loading it needs no file or network access.
const scopeUrl = config.scopeSource
  ? URL.createObjectURL(new Blob([config.scopeSource], { type: 'text/javascript' }))
  : null;
let env: Env = {};
let nextId = 1;

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const failure = (status: number, error: string, message: string) =>
  json(status, { error, message, statusCode: status });

/**
 * The name of the first header a response may not carry, or null. Fetch's Headers accept control
 * characters that HTTP/1.1 does not (Deno.serve then panics, ending every function): values may
 * hold tab, visible ASCII and obs-text only; names must be tokens.
 */
function invalidHeader(headers: unknown): string | null {
  if (!Array.isArray(headers)) return '(not a header list)';
  for (const pair of headers) {
    const [name, value] = Array.isArray(pair) ? pair : [];
    if (typeof name !== 'string' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) return '(an invalid name)';
    if (typeof value !== 'string' || /[^\t\x20-\x7e\x80-\xff]/.test(value)) return name;
  }
  return null;
}

/** One function version in its own worker; recreated from the cached code after a termination. */
class FunctionWorker {
  private worker: Worker | null = null;
  private ready: Promise<void> | null = null;
  private pending = new Map<number, Pending>();
  /** Replaced by another version (retire()). */
  private retired = false;

  constructor(
    readonly slug: string,
    readonly version: number,
    readonly code: string,
  ) {}

  /** Starts the worker and loads the code; rejects with the load error (syntax, no handler). */
  start(): Promise<void> {
    if (this.ready) return this.ready;
    const worker = new Worker(workerUrl, { type: 'module', name: `${this.slug}@${this.version}` });
    this.worker = worker;
    this.ready = new Promise<void>((resolve, reject) => {
      worker.onmessage = (event) => {
        const msg = event.data;
        if (msg.type === 'loaded') resolve();
        else if (msg.type === 'load-error') reject(msg);
        else if (msg.type === 'console') this.print(msg);
        else this.onMessage(msg);
      };
      worker.onerror = (event) => {
        event.preventDefault();
        reject({ message: event.message, line: event.lineno || null, column: event.colno || null });
        this.crash(500, 'WORKER_ERROR', `The function crashed: ${event.message}`);
      };
    });
    // A worker whose code failed to load is of no use: the next start makes a fresh one.
    this.ready.catch(() => this.terminate());
    worker.postMessage({ type: 'load', slug: this.slug, code: this.code, env, scopeUrl, relay: config.relay });
    return this.ready;
  }

  /** A line the function printed, to the Plinth server (stdout) with this function's slug. */
  private print(msg: { requestId: unknown; level: unknown; message: unknown }) {
    const level = msg.level === 'warn' || msg.level === 'error' ? msg.level : 'info';
    const requestId = typeof msg.requestId === 'string' ? msg.requestId : null;
    console.log(JSON.stringify({ output: { slug: this.slug, requestId, level, message: String(msg.message) } }));
  }

  setEnv(next: Env) {
    this.worker?.postMessage({ type: 'env', env: next });
  }

  terminate() {
    this.worker?.terminate();
    this.worker = null;
    this.ready = null;
  }

  /**
   * Replaced by another version: new calls go to that one; the calls in flight finish here (each
   * within its own deadline), and the worker ends with the last of them.
   */
  retire() {
    this.retired = true;
    this.endIfRetiredAndIdle();
  }

  private endIfRetiredAndIdle() {
    if (this.retired && this.pending.size === 0) this.terminate();
  }

  /** An invocation is over (answered, failed or abandoned). */
  private settle(id: number) {
    this.pending.delete(id);
    this.endIfRetiredAndIdle();
  }

  /** The version that replaced this one, for a call that reached this one as it was replaced. */
  private successor(): FunctionWorker | null {
    const current = deployed.get(this.slug);
    return current && current !== this ? current : null;
  }

  /** Ends the worker and every invocation still on it (a loop cannot be interrupted otherwise). */
  crash(status: number, error: string, message: string) {
    this.terminate();
    for (const p of this.pending.values()) p.fail(status, error, message);
    this.pending.clear();
  }

  private onMessage(msg: { type: string; id: number; [k: string]: unknown }) {
    const p = this.pending.get(msg.id);
    if (!p) return;
    if (msg.type === 'response') {
      const invalid = invalidHeader(msg.headers);
      if (invalid !== null) {
        this.worker?.postMessage({ type: 'abort', id: msg.id });
        p.fail(502, 'FUNCTION_ERROR', `The function answered a header HTTP cannot carry: ${invalid}.`);
        this.settle(msg.id);
        return;
      }
      const status = msg.status as number;
      const noBody = !msg.hasBody || status === 204 || status === 304;
      const body = noBody
        ? null
        : new ReadableStream<Uint8Array>({
            start: (controller) => {
              p.body = controller;
            },
            // Asks the worker for the next chunk only when the caller's connection took the last.
            pull: () => this.worker?.postMessage({ type: 'response-pull', id: msg.id }),
            // The caller went away mid-answer: nothing more is enqueued, and the worker stops.
            cancel: () => {
              p.body = null;
              this.worker?.postMessage({ type: 'abort', id: msg.id });
            },
          });
      let res: Response;
      try {
        res = new Response(body, {
          status,
          statusText: msg.statusText as string,
          headers: msg.headers as [string, string][],
        });
      } catch (err) {
        // A function can post any message: one Response cannot make must not end the runtime.
        this.worker?.postMessage({ type: 'abort', id: msg.id });
        p.fail(502, 'FUNCTION_ERROR', `The function's answer is not a valid response: ${(err as Error).message}`);
        this.settle(msg.id);
        return;
      }
      p.onResponse(res);
    } else if (msg.type === 'body-pull') {
      p.bodyCredit.credit++;
      p.bodyCredit.wake?.();
      p.bodyCredit.wake = null;
    } else if (msg.type === 'chunk') {
      p.body?.enqueue(msg.chunk as Uint8Array);
    } else if (msg.type === 'end') {
      p.finish();
      p.body?.close();
      p.body = null;
      this.settle(msg.id);
    } else if (msg.type === 'error') {
      p.fail(msg.status as number, 'FUNCTION_ERROR', msg.message as string);
      this.settle(msg.id);
    }
  }

  async invoke(req: Request, url: string): Promise<Response> {
    const replaced = () => (this.retired ? this.successor() : null);
    const before = replaced();
    if (before) return before.invoke(req, url);
    await this.start();
    // Replaced while it started (and already ended, having no call in flight).
    const after = this.worker ? null : replaced();
    if (after) return after.invoke(req, url);
    const worker = this.worker!;
    const id = nextId++;
    const headers = [...req.headers].filter(([k]) => !k.startsWith('x-plinth-'));
    return await new Promise<Response>((resolve) => {
      let answered = false;
      let settled = false;
      const timer = setTimeout(() => {
        // The only way to stop a function that does not yield is to end its worker.
        p.fail(504, 'GATEWAY_TIMEOUT', `The function did not finish within ${config.timeoutMs} ms.`);
        this.settle(id);
        this.crash(502, 'FUNCTION_ERROR', 'The function was restarted because another invocation timed out.');
      }, config.timeoutMs);
      const p: Pending = {
        body: null,
        bodyCredit: { credit: 0, wake: null, closed: false },
        onResponse(res) {
          answered = true;
          resolve(res);
        },
        finish() {
          settled = true;
          clearTimeout(timer);
          // Nobody reads the rest of the request body any more.
          p.bodyCredit.closed = true;
          p.bodyCredit.wake?.();
        },
        fail(status, error, message) {
          if (settled) return;
          p.finish();
          if (!answered) {
            answered = true;
            resolve(failure(status, error, message));
          } else {
            p.body?.error(new Error(message));
            p.body = null;
          }
        },
      };
      this.pending.set(id, p);
      const requestId = req.headers.get('x-plinth-request-id');
      worker.postMessage({
        type: 'request',
        id,
        requestId,
        method: req.method,
        url,
        headers,
        hasBody: req.body !== null,
      });
      // The caller went away: its invocation no longer holds the deadline over the worker.
      // (The supervisor starts Deno with --unstable-no-legacy-abort: the signal aborts only then,
      // never after a delivered answer.)
      req.signal.addEventListener('abort', () => {
        if (settled) return;
        p.finish();
        this.settle(id);
        worker.postMessage({ type: 'abort', id });
      });
      if (req.body) void streamBody(req.body, worker, id, p.bodyCredit);
    });
  }
}

/** Streams a request body to the worker, a chunk each time the function is ready for one. */
async function streamBody(body: ReadableStream<Uint8Array>, worker: Worker, id: number, gate: Pending['bodyCredit']) {
  try {
    for await (const chunk of body) {
      while (gate.credit === 0 && !gate.closed) await new Promise<void>((resolve) => (gate.wake = resolve));
      if (gate.closed) return;
      gate.credit--;
      const copy = new Uint8Array(chunk);
      worker.postMessage({ type: 'body', id, chunk: copy }, [copy.buffer]);
    }
    worker.postMessage({ type: 'body-end', id });
  } catch {
    worker.postMessage({ type: 'abort', id });
  }
}

const deployed = new Map<string, FunctionWorker>();

async function deploy(slug: string, body: { version: number; code: string }): Promise<Response> {
  const current = deployed.get(slug);
  if (current && current.version === body.version && current.code === body.code) {
    return json(200, { slug, version: body.version });
  }
  const next = new FunctionWorker(slug, body.version, body.code);
  try {
    await next.start();
  } catch (err) {
    const e = err as { message?: string; line?: number | null; column?: number | null };
    return json(422, {
      error: 'DEPLOY_FAILED',
      message: e.message ?? 'The code could not be loaded.',
      line: e.line ?? null,
      column: e.column ?? null,
    });
  }
  deployed.set(slug, next);
  current?.retire();
  return json(200, { slug, version: body.version });
}

async function control(req: Request, path: string): Promise<Response> {
  const fn = /^\/_plinth\/functions\/([a-zA-Z0-9_-]+)$/.exec(path);
  if (fn && req.method === 'PUT') return deploy(fn[1]!, await req.json());
  if (fn && req.method === 'DELETE') {
    deployed.get(fn[1]!)?.crash(404, 'NOT_FOUND', 'The function was deleted.');
    deployed.delete(fn[1]!);
    return json(200, { slug: fn[1] });
  }
  if (path === '/_plinth/functions' && req.method === 'GET') {
    return json(200, { functions: [...deployed.values()].map((f) => ({ slug: f.slug, version: f.version })) });
  }
  if (path === '/_plinth/env' && req.method === 'PUT') {
    env = (await req.json()).env;
    for (const f of deployed.values()) f.setEnv(env);
    return json(200, { variables: Object.keys(env).length });
  }
  return failure(404, 'NOT_FOUND', 'Unknown control route.');
}

const expectedToken = new TextEncoder().encode(config.token);

/** Compares in constant time: functions share loopback with this port and could time a guess. */
function isControlToken(given: string | null): boolean {
  const bytes = new TextEncoder().encode(given ?? '');
  let diff = bytes.length ^ expectedToken.length;
  for (let i = 0; i < expectedToken.length; i++) diff |= (bytes[i] ?? 0) ^ expectedToken[i]!;
  return diff === 0;
}

/** One request, from the port or the socket: health, the control API, or an invocation. */
async function route(req: Request): Promise<Response> {
  const url = new URL(req.url);
  if (url.pathname === '/health') return json(200, { status: 'ok', functions: deployed.size });
  if (!isControlToken(req.headers.get('x-plinth-runtime-token'))) {
    return failure(401, 'UNAUTHORIZED', 'Only the Plinth server may call this runtime.');
  }
  if (url.pathname.startsWith('/_plinth/')) return control(req, url.pathname);
  const slug = /^\/([a-zA-Z0-9_-]+)\/?$/.exec(url.pathname)?.[1];
  if (!slug) return new Response('Not Found', { status: 404, headers: { 'content-type': 'text/plain' } });
  const fn = deployed.get(slug);
  // The server checked its table first; this answers a call that raced a deploy or a removal, in
  // the server's own shape (invoke.routes.ts functionNotFound).
  if (!fn)
    return json(
      404,
      {
        error: 'FUNCTION_NOT_FOUND',
        message: `Function "${slug}" not found or not active.`,
        statusCode: 404,
        nextActions: `List the functions with GET /api/functions; deploy one with POST /api/functions, or activate "${slug}" with PUT /api/functions/${slug} {"status": "active"}.`,
      },
      { 'x-plinth-runtime-missing': '1' },
    );
  return fn.invoke(req, req.headers.get('x-plinth-url') ?? req.url);
}

/** The Unix socket, when one was asked for and could be bound (else the server uses the port). */
function listenOnSocket(path: string | null): string | null {
  if (path === null) return null;
  try {
    Deno.serve({ path, onListen: () => {} }, route);
    return path;
  } catch (err) {
    console.error(`no Unix socket at ${path} (${(err as Error).message}); invocations use the port`);
    return null;
  }
}

const socketPath = listenOnSocket(config.socketPath);
// Functions' workers inherit this process's permissions: no files from here on but the relay's
// socket (connecting to it needs both).
if (config.socketPath !== null) {
  await Deno.permissions.revoke({ name: 'read', path: config.socketPath });
  await Deno.permissions.revoke({ name: 'write', path: config.socketPath });
}
// Given a socket, loopback is denied to this process (functions must not reach local services),
// listening included: the Plinth server serves the port and pipes it to the socket.
if (socketPath !== null) console.log(JSON.stringify({ ready: true, port: null, socketPath }));
else if (config.socketPath !== null) {
  console.error('the Unix socket could not be bound and loopback is denied: the runtime cannot listen');
  Deno.exit(1);
} else {
  Deno.serve(
    {
      hostname: '127.0.0.1',
      port: config.port,
      onListen: ({ port }) => console.log(JSON.stringify({ ready: true, port, socketPath })),
    },
    route,
  );
}
