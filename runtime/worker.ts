// One function version inside its own isolate: loads the function's code, then serves the
// invocations the runtime's main thread relays to it as messages (bodies streamed in chunks).
// Loaded from a blob URL by runtime/server.ts; it has the runtime's permissions (network only).
// Functions written for the reference platform find its scope here too: `createClient` (the
// official client) and `encodeBase64`/`decodeBase64` as globals, and `npm:@insforge/sdk` imports
// served by the bundled client the server handed over (runtime/function-scope.ts), never fetched.

import { AsyncLocalStorage } from 'node:async_hooks';

type Env = Record<string, string>;
type Handler = (req: Request) => Response | Promise<Response>;

let env: Env = {};
// Functions read Deno.env; it sees only what Plinth passes (non-reserved secrets, base URL, anon
// key), never the process environment.
const fakeEnv = {
  get: (key: string) => (Object.hasOwn(env, key) ? env[key] : undefined),
  has: (key: string) => Object.hasOwn(env, key),
  set: (key: string, value: string) => {
    env = { ...env, [key]: String(value) };
  },
  delete: (key: string) => {
    const { [key]: _gone, ...rest } = env;
    env = rest;
  },
  toObject: () => ({ ...env }),
};
Object.defineProperty(Deno, 'env', { value: fakeEnv, configurable: true });

// The network permission is for calling out. A function answers through its handler; it may not
// open listening sockets of its own (they would bind past the runtime's loopback-only rule).
// Deno.serve only hands its handler over (captureDenoServe below), as Supabase's functions use it.
for (const name of ['listen', 'listenTls', 'listenDatagram']) {
  Object.defineProperty(Deno, name, {
    value: () => {
      throw new Deno.errors.NotCapable(
        `Functions cannot listen for connections (Deno.${name}); export a handler instead.`,
      );
    },
    configurable: false,
    writable: false,
  });
}

interface Relay {
  socketPath: string;
  origins: string[];
}

// Private addresses are denied to this process (src/platform/functions-runtime/supervisor.ts), Plinth's own API among
// them when it listens on loopback: fetches to the API and to the origins the operator allows go
// through the Plinth server's relay instead, naming the origin by its place in the list.
let relay: Relay | null = null;
let relayClient: Deno.HttpClient | null = null;
const directFetch = globalThis.fetch;
function fetchThroughRelay(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const href = input instanceof Request ? input.url : String(input);
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return directFetch(input, init);
  }
  const n = relay?.origins.indexOf(url.origin) ?? -1;
  if (n < 0 || relay === null) return directFetch(input, init);
  relayClient ??= Deno.createHttpClient({ proxy: { transport: 'unix', path: relay.socketPath } });
  const request = new Request(input, init);
  return directFetch(new Request(`http://${n}.relay.invalid${url.pathname}${url.search}`, request), {
    client: relayClient,
  });
}
Object.defineProperty(globalThis, 'fetch', { value: fetchThroughRelay, configurable: true, writable: true });

/** The request id of the invocation the running code belongs to (follows awaits and timers). */
const invocation = new AsyncLocalStorage<string | null>();
/** A printed line is cut here: a function printing megabytes must not flood the logs. */
const MAX_LINE = 8_192;

/** Sends one printed line to the runtime, tagged with its invocation's request id. */
function emit(level: 'info' | 'warn' | 'error', message: string) {
  const text = message.length > MAX_LINE ? `${message.slice(0, MAX_LINE)}… (${message.length} characters)` : message;
  postMessage({ type: 'console', requestId: invocation.getStore() ?? null, level, message: text });
}

// console.* of a function goes to Plinth's logs with its invocation, not to an untagged stdout.
const format = (args: unknown[]) => args.map((a) => (typeof a === 'string' ? a : Deno.inspect(a))).join(' ');
for (const [name, level] of [
  ['log', 'info'],
  ['info', 'info'],
  ['debug', 'info'],
  ['trace', 'info'],
  ['warn', 'warn'],
  ['error', 'error'],
] as const) {
  Object.defineProperty(console, name, {
    value: (...args: unknown[]) => emit(level, format(args)),
    configurable: true,
    writable: true,
  });
}

/** V8's stack frame, as Error.prepareStackTrace receives it (Deno has mapped TypeScript positions back). */
interface CallSite {
  getFileName(): string | null | undefined;
  getLineNumber(): number | null;
  getColumnNumber(): number | null;
  getFunctionName(): string | null;
  getTypeName(): string | null;
  getMethodName(): string | null;
  getEvalOrigin(): string | undefined;
  getPromiseIndex(): number | null;
  isNative(): boolean;
  isToplevel(): boolean;
  isConstructor(): boolean;
  isAsync(): boolean;
  isPromiseAll(): boolean;
  isEval(): boolean;
}

/**
 * Where stack frames point, by the URL their code was loaded from: the function's module (a data
 * URL holding its code) is `functions/<slug>.ts`, the bundled client is its package, and this
 * worker's own frames are the runtime's wrapper, left out. Set by the load message.
 */
const sources = { moduleUrl: null as string | null, file: 'function', scopeUrl: null as string | null, prelude: 0 };
const WORKER_URL = import.meta.url;

function frameLocation(site: CallSite): string {
  if (site.isNative()) return 'native';
  const url = site.getFileName();
  if (!url) return site.isEval() ? (site.getEvalOrigin() ?? '<anonymous>') : '<anonymous>';
  const own = url === sources.moduleUrl;
  const name = own ? sources.file : url === sources.scopeUrl ? 'npm:@insforge/sdk (bundled)' : url;
  const line = site.getLineNumber();
  // The legacy form's prelude shares the code's first line (moduleSource).
  const column = (site.getColumnNumber() ?? 0) - (own && line === 1 ? sources.prelude : 0);
  return line === null ? name : `${name}:${line}:${column}`;
}

/** One frame as V8 prints it: `async`, `new`, `Type.method [as alias]`, then the location. */
function frameText(site: CallSite): string {
  if (site.isPromiseAll()) return `async Promise.all (index ${site.getPromiseIndex()})`;
  const where = frameLocation(site);
  const fn = site.getFunctionName();
  let name = fn ?? '';
  if (site.isConstructor()) name = `new ${fn || '<anonymous>'}`;
  else if (!site.isToplevel()) {
    const type = site.getTypeName();
    const method = site.getMethodName();
    if (fn) {
      if (type && !fn.startsWith(`${type}.`)) name = `${type}.${fn}`;
      if (method && method !== fn && !fn.endsWith(`.${method}`)) name += ` [as ${method}]`;
    } else name = `${type ?? '<anonymous>'}.${method ?? '<anonymous>'}`;
  }
  const text = name ? `${name} (${where})` : where;
  return site.isAsync() ? `async ${text}` : text;
}

/**
 * Stacks of errors in this worker (a function's own, thrown or printed) name the function's file
 * and lines instead of the data URL its code was loaded from, and end at its outermost frame: what
 * called it (this worker's relay of the invocation, Deno's event dispatch) is not the user's code.
 */
function prepareStackTrace(error: unknown, sites: CallSite[]): string {
  let header: string;
  try {
    header = String(error);
  } catch {
    header = 'Error';
  }
  const mine = (site: CallSite) => {
    const url = site.getFileName();
    return url === sources.moduleUrl || url === sources.scopeUrl;
  };
  let last = sites.length - 1;
  if (sites.some(mine)) while (last >= 0 && !mine(sites[last]!)) last--;
  const shown = sites.slice(0, last + 1).filter((site) => site.getFileName() !== WORKER_URL);
  return [header, ...shown.map((site) => `    at ${frameText(site)}`)].join('\n');
}
Object.defineProperty(Error, 'prepareStackTrace', { value: prepareStackTrace, writable: true, configurable: true });

let handler: Handler | null = null;
const requestBodies = new Map<number, ReadableStreamDefaultController<Uint8Array>>();
const aborts = new Map<number, AbortController>();
const responseReaders = new Map<number, ReadableStreamDefaultReader<Uint8Array>>();
/** Chunks of each response the main thread has asked for: it asks as its reader makes room. */
const responseCredit = new Map<number, { credit: number; wake: (() => void) | null }>();

function grant(id: number, amount: number) {
  const gate = responseCredit.get(id);
  if (!gate) return;
  gate.credit += amount;
  gate.wake?.();
  gate.wake = null;
}

/** What the reference runtime passes every function besides `Deno`, `module` and `exports`. */
const SCOPE_NAMES = ['createClient', 'encodeBase64', 'decodeBase64'] as const;
/**
 * Code that names none of them (nor the client's package) does not load the bundle: it would add
 * about 25 ms (median, measured) to every worker start and the client to its heap for nothing.
 */
const USES_SCOPE = /\b(?:createClient|encodeBase64|decodeBase64)\b|@insforge\/sdk/;

/** Loads the bundled client once per worker and makes the reference's scope names globals. */
async function installReferenceScope(scopeUrl: string): Promise<void> {
  const scope = await import(scopeUrl);
  for (const name of SCOPE_NAMES) {
    Object.defineProperty(globalThis, name, { value: scope[name], writable: true, configurable: true });
  }
}

/**
 * Points the client's specifiers (`npm:@insforge/sdk`, with or without a version, or bare) at the
 * bundle, in static and dynamic imports and re-exports. Replaced within their lines, so reported
 * line numbers still match the stored code.
 */
function withLocalClient(code: string, scopeUrl: string | null): string {
  if (!scopeUrl) return code;
  return code.replace(
    /(\b(?:from|import)\s*\(?\s*)(['"])(?:npm:)?@insforge\/sdk(?:@[\w.^~<>=*-]+)?\2/g,
    (_match, lead: string, quote: string) => `${lead}${quote}${scopeUrl}${quote}`,
  );
}

/** Both code forms: `export default` (ES module) and the legacy `module.exports = …`. */
function moduleSource(code: string): string {
  if (/\bexport\s+default\b/.test(code)) return code;
  // The prelude stays on line 1 so that reported line numbers match the stored code.
  return `${LEGACY_PRELUDE}${code}\nexport default (module.exports.default ?? module.exports);\n`;
}
const LEGACY_PRELUDE = 'const module: any = { exports: {} }; const exports: any = module.exports; ';

function loadError(err: unknown): { message: string; line: number | null; column: number | null } {
  const text = err instanceof Error ? `${err.message}\n${err.stack ?? ''}` : String(err);
  // A syntax error names the data URL in its message; an error thrown while loading, the file.
  const at = /(?:data:[^\s:]+|functions\/[\w-]+\.ts):(\d+):(\d+)/.exec(text);
  const first = (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? 'Invalid code';
  const message = first.replace(/^TypeError: (?=SyntaxError)/, '').replace(/data:\S+/g, 'function');
  return { message, line: at ? Number(at[1]) : null, column: at ? Number(at[2]) : null };
}

/**
 * Supabase's form, `Deno.serve(handler)` (or `(options, handler)`, or `({handler})`) while the
 * module loads: the handler is kept rather than served, since this worker answers through the
 * runtime. Nothing ever listens; a call later (from a handler) is refused like Deno.listen.
 */
let served: Handler | null = null;
let loading = false;
const serve = (first: unknown, second?: unknown) => {
  if (!loading) {
    throw new Deno.errors.NotCapable('Functions cannot listen for connections (Deno.serve) once loaded.');
  }
  const given =
    typeof first === 'function'
      ? first
      : typeof second === 'function'
        ? second
        : (first as { handler?: unknown } | undefined)?.handler;
  if (typeof given === 'function') served = given as Handler;
  return {
    finished: new Promise<void>(() => {}),
    shutdown: async () => {},
    ref() {},
    unref() {},
    addr: { transport: 'tcp', hostname: '127.0.0.1', port: 0 },
  };
};
Object.defineProperty(Deno, 'serve', { value: serve, configurable: false, writable: false });

async function load(code: string, scopeUrl: string | null, slug: string): Promise<void> {
  const source = moduleSource(withLocalClient(code, scopeUrl));
  const bytes = new TextEncoder().encode(source);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  const moduleUrl = `data:application/typescript;base64,${btoa(binary)}`;
  Object.assign(sources, {
    moduleUrl,
    file: `functions/${slug}.ts`,
    scopeUrl,
    prelude: source.startsWith(LEGACY_PRELUDE) ? LEGACY_PRELUDE.length : 0,
  });
  try {
    if (scopeUrl && USES_SCOPE.test(code)) await installReferenceScope(scopeUrl);
    loading = true;
    const mod = await import(moduleUrl).finally(() => {
      loading = false;
    });
    const exported = mod.default;
    if (typeof exported === 'function') handler = exported as Handler;
    else if (exported && typeof exported.fetch === 'function') handler = (req) => exported.fetch(req);
    else if (served) handler = served;
    else {
      postMessage({
        type: 'load-error',
        message:
          'The function must export a default handler (export default async function (req) { … }) or call Deno.serve(handler).',
        line: null,
        column: null,
      });
      return;
    }
    postMessage({ type: 'loaded' });
  } catch (err) {
    postMessage({ type: 'load-error', ...loadError(err) });
  }
}

function errorResponse(id: number, status: number, message: string) {
  postMessage({ type: 'error', id, status, message });
}

interface InvokeMessage {
  id: number;
  requestId: string | null;
  method: string;
  url: string;
  headers: [string, string][];
  hasBody: boolean;
}

async function invoke(msg: InvokeMessage) {
  const { id } = msg;
  const abort = new AbortController();
  aborts.set(id, abort);
  const body = msg.hasBody
    ? new ReadableStream<Uint8Array>({
        start: (controller) => void requestBodies.set(id, controller),
        // Asks the main thread for the next chunk only when the function has read the last one.
        pull: () => postMessage({ type: 'body-pull', id }),
      })
    : null;
  try {
    const request = new Request(msg.url, { method: msg.method, headers: msg.headers, body, signal: abort.signal });
    let response: unknown;
    try {
      response = await handler!(request);
    } catch (thrown) {
      if (!(thrown instanceof Response)) throw thrown;
      response = thrown;
    }
    if (!(response instanceof Response)) {
      errorResponse(id, 500, 'The function did not return a Response.');
      return;
    }
    postMessage({
      type: 'response',
      id,
      status: response.status,
      statusText: response.statusText,
      headers: [...response.headers],
      hasBody: response.body !== null,
    });
    if (response.body) {
      const reader = response.body.getReader();
      responseReaders.set(id, reader);
      const gate = { credit: 0, wake: null as (() => void) | null };
      responseCredit.set(id, gate);
      for (;;) {
        while (gate.credit === 0) await new Promise<void>((resolve) => (gate.wake = resolve));
        gate.credit--;
        const { done, value } = await reader.read();
        if (done) break;
        const chunk = new Uint8Array(value);
        postMessage({ type: 'chunk', id, chunk }, [chunk.buffer]);
      }
    }
    postMessage({ type: 'end', id });
  } catch (err) {
    emit('error', err instanceof Error ? (err.stack ?? `${err.name}: ${err.message}`) : `Uncaught ${format([err])}`);
    const status = typeof (err as { status?: unknown })?.status === 'number' ? (err as { status: number }).status : 500;
    errorResponse(id, status >= 400 && status < 600 ? status : 500, err instanceof Error ? err.message : String(err));
  } finally {
    requestBodies.delete(id);
    aborts.delete(id);
    responseReaders.delete(id);
    responseCredit.delete(id);
  }
}

self.onmessage = (event: MessageEvent) => {
  const msg = event.data;
  switch (msg.type) {
    case 'load':
      env = msg.env;
      relay = msg.relay ?? null;
      void load(msg.code, msg.scopeUrl, typeof msg.slug === 'string' ? msg.slug : 'function');
      break;
    case 'env':
      env = msg.env;
      break;
    case 'request':
      void invocation.run(msg.requestId ?? null, () => invoke(msg));
      break;
    case 'body':
      requestBodies.get(msg.id)?.enqueue(msg.chunk);
      break;
    case 'body-end':
      requestBodies.get(msg.id)?.close();
      break;
    case 'abort':
      requestBodies.get(msg.id)?.error(new Error('The client went away.'));
      aborts.get(msg.id)?.abort();
      // Stops a response the caller no longer reads (an endless stream, say).
      void responseReaders
        .get(msg.id)
        ?.cancel()
        .catch(() => {});
      grant(msg.id, Infinity);
      break;
    case 'response-pull':
      grant(msg.id, 1);
      break;
  }
};
