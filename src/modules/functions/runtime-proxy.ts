// The invocation hot path to the Deno runtime: keep-alive connections (one undici pool per
// runtime process, on its Unix socket where it has one, else its port) and a dispatch handler that writes the runtime's answer straight to the client's
// socket, with backpressure both ways and no intermediate response object.
import type http from 'node:http';
import { PassThrough } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { Pool, type Dispatcher } from 'undici';
import { HOP_BY_HOP } from '../../core/hop-by-hop.js';

export const forwardable = (name: string) => !HOP_BY_HOP.has(name) && !name.startsWith('x-plinth-');

export interface ProxyCall {
  method: string;
  path: string;
  /** Name, value, name, value…: passed to the runtime as they are. */
  headers: string[];
  /** The client's request, whose body is streamed up (null: none, GET and HEAD). */
  body: http.IncomingMessage | null;
  /**
   * Where the answer goes: the reply's headers (request id, CORS) are sent with the function's,
   * which replace those of the same name; once the head is written the reply is hijacked.
   */
  reply: FastifyReply;
  /** Whether the server is shutting down: the answer then closes its connection. */
  closing: () => boolean;
  /**
   * Name, value pairs sent whatever the function set, beside its own (a browser enforces every
   * Content-Security-Policy it gets, so the function cannot lift Plinth's sandbox).
   */
  enforcedHeaders: readonly string[];
}

export type ProxyFailure = { kind: 'timeout' | 'unreachable'; cause: Error };

/** Where the running runtime takes invocations: its Unix socket, or (null) its loopback port. */
export interface RuntimeAddress {
  port: number;
  socketPath: string | null;
}

export interface RuntimeProxy {
  /** Resolves once the answer's head is written; rejects (before that) when the runtime fails. */
  forward(runtime: RuntimeAddress, call: ProxyCall): Promise<void>;
  close(): Promise<void>;
}

const INVOCATION = Symbol('invocation');
type AnswerStream = http.ServerResponse & { [INVOCATION]?: Invocation };

/** The client went away (mid-upload or mid-answer): one listener for all invocations, no closure each. */
function onClientClose(this: AnswerStream): void {
  this[INVOCATION]?.clientClosed();
}

/**
 * One invocation as undici's dispatch handler: its answer goes straight to the client's socket. A
 * class, so that each call allocates one object rather than a closure per callback.
 */
class Invocation implements Dispatcher.DispatchHandlers {
  /** The request body's stream to the runtime (null: none). */
  readonly body: PassThrough | null = null;
  private abort: ((err?: Error) => void) | null = null;
  private resume: (() => void) | null = null;
  private answered = false;
  private clientGone = false;

  constructor(
    private readonly call: ProxyCall,
    private readonly resolve: () => void,
    private readonly reject: (failure: ProxyFailure) => void,
  ) {
    if (call.body) {
      this.body = new PassThrough();
      call.body.pipe(this.body);
    }
    const out = call.reply.raw as AnswerStream;
    out[INVOCATION] = this;
    out.on('close', onClientClose);
  }

  /** Stops the function's work and drops the connection: an unfinished answer leaves nothing to keep alive. */
  clientClosed(): void {
    const out = this.call.reply.raw;
    if (out.writableFinished) return;
    this.clientGone = true;
    this.abort?.();
    out.socket?.destroy();
  }

  onConnect(abort: (err?: Error) => void): void {
    this.abort = abort;
    if (this.clientGone) abort();
  }

  onHeaders(status: number, raw: Buffer[], resume: () => void): boolean {
    this.answered = true;
    this.resume = resume;
    const { call } = this;
    // Name, value pairs: the function's headers, then Plinth's that the function did not set
    // (one function header replaces Plinth's of that name; repeated ones, set-cookie, all go).
    const answer: (string | number | string[])[] = [];
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = raw[i]!.toString('latin1').toLowerCase();
      if (forwardable(name)) answer.push(name, raw[i + 1]!.toString('latin1'));
    }
    const fromFunction = answer.length;
    const { reply } = call;
    const own = reply.getHeaders();
    for (const name in own) {
      const value = own[name];
      if (value !== undefined && !setAmong(answer, fromFunction, name)) answer.push(name, value);
    }
    answer.push(...call.enforcedHeaders);
    if (call.closing()) answer.push('connection', 'close');
    reply.hijack();
    reply.raw.writeHead(status, answer as string[]);
    this.resolve();
    return true;
  }

  onData(chunk: Buffer): boolean {
    const out = this.call.reply.raw;
    if (out.write(chunk)) return true;
    // undici pauses until resumed: once the client has taken what is buffered.
    if (this.resume) out.once('drain', this.resume);
    return false;
  }

  onComplete(): void {
    this.call.reply.raw.end();
  }

  onError(err: Error): void {
    const { call } = this;
    if (this.body && call.body) call.body.unpipe(this.body);
    if (this.answered) call.reply.raw.destroy();
    else
      this.reject({
        kind: (err as { code?: string }).code === 'UND_ERR_HEADERS_TIMEOUT' ? 'timeout' : 'unreachable',
        cause: err,
      });
  }
}

/** Whether `name` is among the first `count` entries' names of a name, value list. */
function setAmong(list: unknown[], count: number, name: string): boolean {
  for (let i = 0; i < count; i += 2) if (list[i] === name) return true;
  return false;
}

export function createRuntimeProxy(deadlineMs: number): RuntimeProxy {
  let current: { key: string; pool: Pool } | null = null;

  function poolFor({ port, socketPath }: RuntimeAddress): Pool {
    const key = socketPath ?? String(port);
    if (current?.key !== key) {
      // A restarted runtime listens on a new socket (or port): the old connections lead nowhere.
      void current?.pool.destroy().catch(() => {});
      const options = { connections: 256, headersTimeout: deadlineMs, bodyTimeout: deadlineMs };
      current = {
        key,
        pool: socketPath
          ? new Pool('http://localhost', { ...options, socketPath })
          : new Pool(`http://127.0.0.1:${port}`, options),
      };
    }
    return current.pool;
  }

  function forward(runtime: RuntimeAddress, call: ProxyCall): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const invocation = new Invocation(call, resolve, reject);
      try {
        poolFor(runtime).dispatch(
          {
            method: call.method as Dispatcher.HttpMethod,
            path: call.path,
            headers: call.headers,
            body: invocation.body,
          },
          invocation,
        );
      } catch (err) {
        invocation.onError(err as Error);
      }
    });
  }

  return {
    forward,
    async close() {
      await current?.pool.destroy().catch(() => {});
      current = null;
    },
  };
}
