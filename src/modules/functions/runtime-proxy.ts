// The invocation hot path to the Deno runtime: keep-alive connections (one undici pool per
// runtime process, on its Unix socket where it has one, else its port) and a dispatch handler that writes the runtime's answer straight to the client's
// socket, with backpressure both ways and no intermediate response object.
import type http from 'node:http';
import { PassThrough } from 'node:stream';
import { Pool, type Dispatcher } from 'undici';

/** Connection-level headers that belong to one hop, never forwarded (either way). */
export const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'expect',
]);

export const forwardable = (name: string) => !HOP_BY_HOP.has(name) && !name.startsWith('x-plinth-');

export interface ProxyCall {
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
  /** The client's request, whose body is streamed up (null: none, GET and HEAD). */
  body: http.IncomingMessage | null;
  /** Plinth's headers for the answer (request id, CORS); the function's replace those it also sets. */
  answerHeaders: () => http.OutgoingHttpHeaders;
  /** Called once, just before the answer's head is written: the answer is the proxy's from then on. */
  onAnswer: () => void;
  /** Where the answer goes. */
  out: http.ServerResponse;
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
    const { out } = call;
    return new Promise<void>((resolve, reject) => {
      let abort: ((err?: Error) => void) | null = null;
      let answered = false;
      let clientGone = false;
      let body: PassThrough | null = null;
      if (call.body) {
        body = new PassThrough();
        call.body.pipe(body);
      }
      // The client went away (mid-upload or mid-answer): stop the function's work, and drop the
      // connection (an unfinished answer leaves nothing to keep alive).
      out.on('close', () => {
        if (out.writableFinished) return;
        clientGone = true;
        abort?.();
        out.socket?.destroy();
      });
      const handler: Dispatcher.DispatchHandlers = {
        onConnect(abortRequest) {
          abort = abortRequest;
          if (clientGone) abortRequest();
        },
        onHeaders(status, raw, resume) {
          answered = true;
          const headers = call.answerHeaders();
          let fromFunction: Set<string> | null = null;
          for (let i = 0; i + 1 < raw.length; i += 2) {
            const name = raw[i]!.toString('latin1').toLowerCase();
            if (!forwardable(name)) continue;
            const value = raw[i + 1]!.toString('latin1');
            // One function header replaces Plinth's of that name; repeated ones (set-cookie) all go.
            if (fromFunction?.has(name)) {
              const prev = headers[name]!;
              headers[name] = Array.isArray(prev) ? [...prev, value] : [String(prev), value];
            } else {
              fromFunction ??= new Set();
              fromFunction.add(name);
              headers[name] = value;
            }
          }
          call.onAnswer();
          out.writeHead(status, headers);
          out.on('drain', resume);
          resolve();
          return true;
        },
        onData(chunk) {
          return out.write(chunk);
        },
        onComplete() {
          out.end();
        },
        onError(err) {
          if (body && call.body) call.body.unpipe(body);
          if (answered) out.destroy();
          else
            reject({
              kind: (err as { code?: string }).code === 'UND_ERR_HEADERS_TIMEOUT' ? 'timeout' : 'unreachable',
              cause: err,
            } satisfies ProxyFailure);
        },
      };
      try {
        poolFor(runtime).dispatch(
          { method: call.method as Dispatcher.HttpMethod, path: call.path, headers: call.headers, body },
          handler,
        );
      } catch (err) {
        handler.onError!(err as Error);
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
