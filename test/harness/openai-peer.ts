// A loopback peer speaking the OpenAI-compatible API an AI provider serves: /chat/completions (JSON
// and SSE streams, tool calls and their deltas, image output), /images/generations, /embeddings,
// and error answers. The model id picks the behaviour, so concurrent tests do not interfere:
//   any id            echoes the last user message ("echo: …"), streamed as two deltas
//   tools/…           answers two function calls (streamed as deltas, arguments in pieces)
//   image/…           answers an image (data URI) in message.images (modalities text+image)
//   cited/…           answers a url_citation annotation
//   error-<status>/…  answers that HTTP status with an OpenAI error body
//   broken/…          streams one delta, then drops the connection
//   slow/…            streams one delta, then waits for the test (`slowStream()`) before the rest
//   flood/…           streams many large deltas (`floodStream()`), writing only as its socket drains
// GET /models (no credential, as the provider serves it) lists PEER_MODELS, or fails on demand.
// Every request is recorded; a slow stream reports whether its caller went away before the end; a
// flood reports how many deltas it wrote and when its writes stalled (its caller stopped reading).
import { once } from 'node:events';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}

/** A test's handle on the next `slow/…` stream. */
export interface SlowStream {
  /** Resolves once the first delta has been written. */
  firstChunkSent: Promise<void>;
  /** Lets the stream send the rest and end. */
  release(): void;
  /** Resolves when the caller closed the connection before the stream ended. */
  aborted: Promise<void>;
  /** Resolves when the stream ended normally. */
  finished: Promise<void>;
}

/** A test's handle on the next `flood/…` stream. */
export interface FloodStream {
  /** Deltas the stream sends (each `floodText(index, deltaBytes)`), then usage and [DONE]. */
  deltas: number;
  deltaBytes: number;
  /** Deltas handed to the socket so far. */
  written(): number;
  /**
   * Resolves with `written()` the first time a write waits for 'drain' through FLOOD_STALL_TURNS
   * event-loop turns without it: nothing downstream is reading (not a timer, so no timing).
   */
  stalled: Promise<number>;
  /** Resolves when the stream ended normally. */
  finished: Promise<void>;
}

export interface OpenAiPeer {
  baseUrl: string;
  /** The key the peer accepts (anything else: 401). */
  apiKey: string;
  requests: RecordedRequest[];
  /** GET /models answers 500 while on. */
  failModels(on: boolean): void;
  /** The handle of the next `slow/…` stream; call before starting the request. */
  slowStream(): SlowStream;
  /** The handle of the next `flood/…` stream; call before starting the request. */
  floodStream(deltas: number, deltaBytes: number): FloodStream;
  close(): Promise<void>;
}

export const PEER_USAGE = { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 };
/** A 1×1 PNG as the image the peer "generates". */
export const PEER_IMAGE =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
/** The provider's model list, in its own shape (modalities repeated and unordered, prices per token). */
export const PEER_MODELS = [
  {
    id: 'zeta/free-model',
    created: 4,
    architecture: { input_modalities: ['text'], output_modalities: ['text'] },
    pricing: { prompt: '0', completion: '0' },
  },
  {
    id: 'google/gemini-flash',
    created: 3,
    architecture: { input_modalities: ['video', 'image', 'text', 'text'], output_modalities: ['text'] },
    pricing: { prompt: '0.0000001', completion: '0.0000004' },
  },
  {
    id: 'anthropic/claude',
    created: 2,
    architecture: { input_modalities: ['text', 'file'], output_modalities: ['text'] },
    pricing: { prompt: '0.000003', completion: '0.000015' },
  },
  {
    id: 'openai/image-gen',
    created: 1,
    architecture: { input_modalities: ['text'], output_modalities: ['image'] },
    pricing: { prompt: '0.000005', completion: '0.00004' },
  },
  { id: 'broken/no-modalities', created: 0, architecture: {}, pricing: {} },
];
export const PEER_TOOL_CALLS = [
  { id: 'call_weather', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
  { id: 'call_time', type: 'function', function: { name: 'get_time', arguments: '{"tz":"CET"}' } },
];

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/**
 * Event-loop turns a flood write may wait for 'drain' before it counts as stalled. On loopback every
 * hop of a moving stream (peer -> Plinth -> client) advances within a turn or two, so this many turns
 * without a drain means the chain stopped.
 */
export const FLOOD_STALL_TURNS = 200;

/** The text of a flood's delta: its index, then filler, `bytes` long (no JSON escaping). */
export const floodText = (index: number, bytes: number): string =>
  `${String(index).padStart(8, '0')}:`.padEnd(bytes, 'x');

const lastUserText = (body: any): string => {
  const user = [...(body.messages ?? [])].reverse().find((m: any) => m.role === 'user');
  if (typeof user?.content === 'string') return user.content;
  return (user?.content ?? []).find((p: any) => p.type === 'text')?.text ?? '';
};

function sendJson(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function sendError(res: ServerResponse, status: number, message: string) {
  // x-should-retry: false keeps the client's automatic retries out of the error tests' timing.
  res.setHeader('x-should-retry', 'false');
  sendJson(res, status, { error: { message, code: status, type: 'peer_error' } });
}

const completion = (model: string, message: Record<string, unknown>, finish = 'stop') => ({
  id: 'chatcmpl-peer',
  object: 'chat.completion',
  created: 1_700_000_000,
  model,
  choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }],
  usage: PEER_USAGE,
});

const chunk = (model: string, delta: Record<string, unknown>, finish: string | null = null) => ({
  id: 'chatcmpl-peer',
  object: 'chat.completion.chunk',
  created: 1_700_000_000,
  model,
  choices: [{ index: 0, delta, finish_reason: finish }],
});

/** The deltas of a stream for this request. */
function streamDeltas(body: any): unknown[] {
  const model = body.model as string;
  if (model.startsWith('tools/')) {
    return [
      chunk(model, { role: 'assistant', content: null }),
      ...PEER_TOOL_CALLS.flatMap((call, index) => {
        const args = call.function.arguments;
        const cut = Math.floor(args.length / 2);
        return [
          chunk(model, {
            tool_calls: [
              { index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } },
            ],
          }),
          chunk(model, { tool_calls: [{ index, function: { arguments: args.slice(0, cut) } }] }),
          chunk(model, { tool_calls: [{ index, function: { arguments: args.slice(cut) } }] }),
        ];
      }),
      chunk(model, {}, 'tool_calls'),
    ];
  }
  const text = `echo: ${lastUserText(body)}`;
  const cut = Math.ceil(text.length / 2);
  return [
    chunk(model, { content: text.slice(0, cut) }),
    chunk(model, { content: text.slice(cut) }),
    chunk(model, {}, 'stop'),
  ];
}

export async function startOpenAiPeer(apiKey = 'sk-or-v1-peer-key-0123456789'): Promise<OpenAiPeer> {
  const requests: RecordedRequest[] = [];
  let modelsFail = false;
  const slowQueue: (SlowStream & { sent(): void; gate: Promise<void>; abort(): void; finish(): void })[] = [];
  const floodQueue: (FloodStream & { wrote(): void; stall(): void; finish(): void })[] = [];

  const write = async (res: ServerResponse, payload: unknown) => {
    if (!res.write(`data: ${JSON.stringify(payload)}\n\n`)) await once(res, 'drain');
  };

  /** Waits for 'drain' (or the caller leaving); reports a stall when none came for FLOOD_STALL_TURNS turns. */
  async function drainOrStall(res: ServerResponse, onStall: () => void) {
    let drained = false;
    const drain = new Promise<void>((resolve) => {
      const done = () => {
        drained = true;
        res.off('drain', done).off('close', done);
        resolve();
      };
      res.on('drain', done).on('close', done);
    });
    for (let turn = 0; turn < FLOOD_STALL_TURNS && !drained; turn++) await nextTurn();
    if (!drained) onStall();
    await drain;
  }

  async function flood(model: string, res: ServerResponse) {
    const handle = floodQueue.shift();
    if (!handle) throw new Error('flood stream without floodStream() handle');
    for (let index = 0; index < handle.deltas; index++) {
      if (res.destroyed) return;
      const delta = chunk(model, { content: floodText(index, handle.deltaBytes) });
      const room = res.write(`data: ${JSON.stringify(delta)}\n\n`);
      handle.wrote();
      if (!room) await drainOrStall(res, handle.stall);
    }
    await write(res, chunk(model, {}, 'stop'));
    await write(res, { id: 'chatcmpl-peer', object: 'chat.completion.chunk', model, choices: [], usage: PEER_USAGE });
    res.end('data: [DONE]\n\n');
    handle.finish();
  }

  async function stream(body: any, res: ServerResponse) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const model = body.model as string;
    if (model.startsWith('flood/')) return flood(model, res);
    const deltas = streamDeltas(body);
    if (model.startsWith('broken/')) {
      // Destroyed once the first delta has left, so the caller has seen the stream begin.
      res.write(`data: ${JSON.stringify(deltas[0])}\n\n`, () => res.socket?.destroy());
      return;
    }
    if (model.startsWith('slow/')) {
      const handle = slowQueue.shift();
      if (!handle) throw new Error('slow stream without slowStream() handle');
      res.on('close', () => {
        if (!res.writableFinished) handle.abort();
      });
      await write(res, deltas[0]);
      handle.sent();
      await handle.gate;
      if (res.destroyed) return;
      for (const d of deltas.slice(1)) await write(res, d);
      res.write('data: [DONE]\n\n');
      res.end();
      handle.finish();
      return;
    }
    for (const d of deltas) await write(res, d);
    if (body.stream_options?.include_usage) {
      await write(res, { id: 'chatcmpl-peer', object: 'chat.completion.chunk', model, choices: [], usage: PEER_USAGE });
    }
    res.end('data: [DONE]\n\n');
  }

  function chat(body: any, res: ServerResponse) {
    const model = body.model as string;
    if (body.stream) return stream(body, res);
    if (model.startsWith('tools/')) {
      return sendJson(res, 200, completion(model, { content: null, tool_calls: PEER_TOOL_CALLS }, 'tool_calls'));
    }
    if (model.startsWith('image/')) {
      return sendJson(
        res,
        200,
        completion(model, {
          content: `image of ${lastUserText(body)}`,
          images: [{ type: 'image_url', image_url: { url: PEER_IMAGE } }],
        }),
      );
    }
    const annotations = model.startsWith('cited/')
      ? [
          {
            type: 'url_citation',
            url_citation: { url: 'https://example.com/a', title: 'A', content: 'a', start_index: 0, end_index: 4 },
          },
        ]
      : undefined;
    return sendJson(res, 200, completion(model, { content: `echo: ${lastUserText(body)}`, annotations }));
  }

  function embeddings(body: any, res: ServerResponse) {
    const inputs: string[] = Array.isArray(body.input) ? body.input : [body.input];
    const dims = body.dimensions || 3;
    const data = inputs.map((text, index) => {
      const vector = Array.from({ length: dims }, (_, i) => (text.length + i) / 10);
      const embedding =
        body.encoding_format === 'base64' ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector;
      return { object: 'embedding', embedding, index };
    });
    sendJson(res, 200, {
      object: 'list',
      data,
      model: `${body.model}-v1`,
      usage: { prompt_tokens: inputs.length * 2, total_tokens: inputs.length * 2 },
    });
  }

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const body = text ? JSON.parse(text) : undefined;
    const path = (req.url ?? '').split('?')[0] ?? '';
    requests.push({ path, headers: req.headers, body });
    if (req.method === 'GET' && path === '/models') {
      if (modelsFail) return sendError(res, 500, 'catalogue down');
      return sendJson(res, 200, { data: PEER_MODELS });
    }
    if (req.headers.authorization !== `Bearer ${apiKey}`) return sendError(res, 401, 'Invalid API key');
    const failure = /^error-(\d{3})\//.exec(body?.model ?? '');
    if (failure) return sendError(res, Number(failure[1]), `peer failure ${failure[1]}`);
    if (req.method === 'POST' && path === '/chat/completions') return chat(body, res);
    if (req.method === 'POST' && path === '/embeddings') return embeddings(body, res);
    if (req.method === 'POST' && path === '/images/generations') {
      return sendJson(res, 200, { created: 1_700_000_000, data: [{ b64_json: PEER_IMAGE.split(',')[1] }] });
    }
    return sendError(res, 404, `no route ${req.method} ${path}`);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    apiKey,
    requests,
    failModels(on) {
      modelsFail = on;
    },
    slowStream() {
      const first = deferred();
      const gate = deferred();
      const aborted = deferred();
      const finished = deferred();
      const handle = {
        firstChunkSent: first.promise,
        release: gate.resolve,
        aborted: aborted.promise,
        finished: finished.promise,
        sent: first.resolve,
        gate: gate.promise,
        abort: () => {
          aborted.resolve();
          gate.resolve();
        },
        finish: finished.resolve,
      };
      slowQueue.push(handle);
      return handle;
    },
    floodStream(deltas, deltaBytes) {
      let written = 0;
      const stalled = deferred<number>();
      const finished = deferred();
      const handle = {
        deltas,
        deltaBytes,
        written: () => written,
        stalled: stalled.promise,
        finished: finished.promise,
        wrote: () => {
          written++;
        },
        stall: () => stalled.resolve(written), // the first stall counts; later ones are no-ops
        finish: finished.resolve,
      };
      floodQueue.push(handle);
      return handle;
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
