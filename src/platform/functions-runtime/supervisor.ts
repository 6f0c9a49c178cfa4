// Starts the Deno function runtime as a child process with network permission only, watches its
// health, and restarts it with backoff when it dies or stops answering. Every (re)start runs the
// ready hooks (deploy every function, pass the secrets) before the runtime counts as running.
// Besides its loopback port the runtime listens on a Unix socket in a private directory, which
// invocations use (cheaper per request than loopback TCP); without one they use the port.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Server } from 'node:net';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { denoDeniedNet } from '../../core/address-policy.js';
import { readFunctionScope } from './scope-bundle.js';
import { randomHex } from '../../core/ids.js';
import { listenRuntimePort } from './port.js';
import { startRuntimeRelay, type RuntimeRelay } from './relay.js';
import { runtimeSocketPlace } from './socket.js';

export type RuntimeStatus = 'stopped' | 'starting' | 'running' | 'unavailable';

export interface RuntimeOptions {
  port: number;
  timeoutMs: number;
  memoryMb: number;
  healthIntervalMs: number;
  denoPath?: string;
  /** Where Deno keeps its transpile cache. */
  cacheDir: string;
  /** Where the supervisor reports (also set later with setLogger, once the app's logger exists). */
  log?: RuntimeLog;
  /**
   * The origins functions reach through the relay although private addresses are denied to them:
   * Plinth's own API first, then those the operator allows. Empty: no relay.
   */
  relayOrigins?: readonly string[];
}

/** A line a function printed (console.*), tagged by the runtime with its invocation's request id. */
export interface FunctionOutput {
  slug: string;
  /** Plinth's request id of the invocation; null for output outside one (while loading). */
  requestId: string | null;
  level: 'info' | 'warn' | 'error';
  message: string;
}

export type RuntimeLog = (level: 'info' | 'warn' | 'error', message: string, extra?: Record<string, unknown>) => void;

/** What readiness and operators see of the runtime. */
export interface RuntimeHealth {
  status: RuntimeStatus;
  /** Starts after the first one (crashes, failed health checks, failed spawns). */
  restarts: number;
  /** Failed starts in a row (the backoff grows with it, up to 10 s). */
  consecutiveFailures: number;
  lastExit: string | null;
  /** When the next start is due while unavailable. */
  nextAttemptAt: string | null;
}

export interface RuntimeSupervisor {
  readonly status: RuntimeStatus;
  readonly health: RuntimeHealth;
  /** http://127.0.0.1:<port> of the running runtime, else null. */
  readonly baseUrl: string | null;
  readonly port: number | null;
  /** The Unix socket the running runtime also listens on (invocations use it), else null. */
  readonly socketPath: string | null;
  /** Sent as x-plinth-runtime-token: the runtime answers nobody else. */
  readonly token: string;
  readonly pid: number | undefined;
  /** Starts the runtime; resolves once it is running (ready hooks done). */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Resolves when the runtime is next running. */
  untilRunning(): Promise<void>;
  /** Runs after every (re)start, before the runtime counts as running. */
  onReady(hook: () => Promise<void>): void;
  onExit(listener: () => void): void;
  /** Reports through `log` from now on. */
  setLogger(log: RuntimeLog): void;
  /** Hears every line functions print (without a listener they go to `log`); returns the unsubscribe. */
  onOutput(listener: (output: FunctionOutput) => void): () => void;
}

const RUNTIME_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../runtime');
const MAX_BACKOFF_MS = 10_000;

/**
 * The Deno executable from its npm platform package (`@deno/<platform>`, an optional dependency:
 * linux-x64 is installed; elsewhere set FUNCTIONS_DENO_PATH). The `deno` wrapper package is not
 * used: its platform packages for one version are not all published, so its lock file could not
 * be complete, and 2.9.5 (the last complete one) stalls on request bodies of a few megabytes.
 */
export function denoBinary(): string {
  const require = createRequire(import.meta.url);
  const platform = `@deno/${process.platform}-${process.arch}${process.platform === 'linux' ? '-glibc' : ''}`;
  const exe = process.platform === 'win32' ? 'deno.exe' : 'deno';
  try {
    return path.join(path.dirname(require.resolve(`${platform}/package.json`)), exe);
  } catch {
    throw new Error(`No Deno binary is installed for ${process.platform}-${process.arch}: set FUNCTIONS_DENO_PATH`);
  }
}

/** Deno's read and write permission on exactly these paths (none when there are none). */
function fileAccess(paths: Array<string | null>): string[] {
  const list = paths.filter((p): p is string => p !== null).join(',');
  return list === '' ? [] : [`--allow-read=${list}`, `--allow-write=${list}`];
}

export function createRuntimeSupervisor(options: RuntimeOptions): RuntimeSupervisor {
  const token = randomHex(32);
  let log: RuntimeLog = options.log ?? (() => {});
  const workerSource = readFileSync(path.join(RUNTIME_DIR, 'worker.ts'), 'utf8');
  /** The function scope bundle, read at the first start (by then the app's logger is set). */
  let scopeSource: string | null | undefined;
  const readyHooks: Array<() => Promise<void>> = [];
  const exitListeners: Array<() => void> = [];
  const outputListeners = new Set<(output: FunctionOutput) => void>();
  let waiters: Array<() => void> = [];
  let status: RuntimeStatus = 'stopped';
  let child: ChildProcess | null = null;
  let port: number | null = null;
  // Unix sockets are not used on Windows: the runtime's port serves there.
  const sockets = runtimeSocketPlace(process.platform !== 'win32', (message, err) => log('warn', message, { err }));
  /** The socket the running process listens on (it may have had to do without): null, the port. */
  let socketPath: string | null = null;
  let failures = 0;
  let runningSince = 0;
  let restartTimer: NodeJS.Timeout | null = null;
  let restarts = 0;
  let lastExit: string | null = null;
  let nextAttemptAt: number | null = null;
  let healthTimer: NodeJS.Timeout | null = null;
  let relay: RuntimeRelay | null = null;
  /** The loopback port this process serves for a runtime that listens on its socket only. */
  let portServer: Server | null = null;
  let relaySocket: string | null = null;
  const relayOrigins = options.relayOrigins ?? [];

  /** Starts the relay once per server; without a socket functions reach public addresses only. */
  async function startRelay() {
    const place = relayOrigins.length === 0 ? null : sockets.relay();
    if (place === null) return;
    try {
      relay = await startRuntimeRelay(place, relayOrigins);
      relaySocket = place;
    } catch (err) {
      log('warn', 'no relay for functions to reach the API; they reach public addresses only', { err });
    }
  }

  const setRunning = () => {
    status = 'running';
    runningSince = Date.now();
    const woken = waiters;
    waiters = [];
    for (const wake of woken) wake();
  };

  /** Asks the way invocations come (the socket, else the port): a removed socket is a failure. */
  function healthy(): Promise<boolean> {
    const to = socketPath === null ? { host: '127.0.0.1', port: port ?? 0 } : { socketPath };
    return new Promise((resolve) => {
      const req = http.get({ ...to, path: '/health', timeout: 2_000, agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      });
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve(false));
    });
  }

  async function onListening(proc: ChildProcess) {
    try {
      for (const hook of readyHooks) await hook();
    } catch (err) {
      log('error', 'the function runtime could not be prepared; restarting it', { err });
      proc.kill('SIGKILL');
      return;
    }
    if (child !== proc) return;
    setRunning();
    log('info', `function runtime running on 127.0.0.1:${port}${socketPath ? ` and ${socketPath}` : ''}`);
    let misses = 0;
    healthTimer = setInterval(() => {
      void healthy().then((ok) => {
        misses = ok ? 0 : misses + 1;
        if (misses >= 2 && child === proc) {
          log('warn', 'the function runtime stopped answering; restarting it');
          proc.kill('SIGKILL');
        }
      });
    }, options.healthIntervalMs);
    healthTimer.unref();
  }

  /** Starts one runtime process. Never throws: a process that cannot start is a failed start. */
  function launch() {
    status = 'starting';
    runningSince = 0;
    if (scopeSource === undefined) scopeSource = readFunctionScope(RUNTIME_DIR, log);
    // A fresh socket for each process: the proxy keys its connections by it.
    const socketFile = sockets.next();
    let proc: ChildProcess;
    try {
      proc = spawn(
        options.denoPath ?? denoBinary(),
        [
          'run',
          '--allow-net',
          // Loopback, private, link-local and reserved addresses: also when a name resolves to one.
          // (Deny also forbids listening there: such a runtime listens on its socket only.)
          ...(socketFile === null ? [] : [`--deny-net=${denoDeniedNet()}`]),
          // The invocation socket only to bind it (revoked before any function loads); the relay's
          // to connect to it (functions reach the API and allowed origins through it).
          ...fileAccess([socketFile, relaySocket]),
          '--no-prompt',
          // request.signal aborts only when the caller goes away, not after every delivered answer:
          // the runtime stops an invocation whose caller left (runtime/server.ts). Deno's legacy
          // behaviour (the default until a coming release) warns at the first request that reads it.
          '--unstable-no-legacy-abort',
          `--v8-flags=--max-old-space-size=${options.memoryMb}`,
          path.join(RUNTIME_DIR, 'server.ts'),
        ],
        {
          env: { DENO_DIR: options.cacheDir, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' },
          stdio: ['pipe', 'pipe', 'pipe'],
          // Its own process group: a Ctrl-C to the terminal's group reaches the server only, which
          // drains in-flight invocations before it stops the runtime. Should the server die
          // instead, the runtime sees its stdin end and exits (runtime/server.ts).
          detached: true,
        },
      );
    } catch (err) {
      log('error', 'the function runtime could not be started', { err });
      retryLater(`spawn failed: ${(err as Error).message}`);
      return;
    }
    child = proc;
    proc.on('error', (err) => {
      log('error', 'the function runtime could not be started', { err });
      // A process that never started sends no exit event: retry as if it had exited.
      if (proc.pid === undefined) gone(proc, `spawn failed: ${(err as NodeJS.ErrnoException).code ?? err.message}`);
    });
    proc.on('exit', (code, signal) => gone(proc, String(signal ?? code)));
    // Out of file descriptors (EMFILE), spawn hands back a process without pipes (and emits
    // 'error' above): nothing more to wire up.
    if (!proc.stdin || !proc.stdout || !proc.stderr) return;
    proc.stdin.on('error', () => {});
    proc.stdin.write(
      `${JSON.stringify({ port: options.port, socketPath: socketFile, token, timeoutMs: options.timeoutMs, workerSource, scopeSource, relay: relaySocket === null ? null : { socketPath: relaySocket, origins: relayOrigins } })}\n`,
    );
    createInterface({ input: proc.stdout }).on('line', (line) => {
      let msg: { ready?: boolean; port?: number; socketPath?: string | null; output?: FunctionOutput } | undefined;
      try {
        msg = JSON.parse(line);
      } catch {
        msg = undefined;
      }
      if (msg?.ready && typeof msg.port === 'number') {
        port = msg.port;
        socketPath = typeof msg.socketPath === 'string' ? msg.socketPath : null;
        void onListening(proc);
      } else if (msg?.ready && typeof msg.socketPath === 'string') {
        void servePort(proc, msg.socketPath);
      } else if (msg?.output && outputListeners.size > 0) {
        for (const listener of outputListeners) listener(msg.output);
      } else log('info', `function runtime: ${line}`);
    });
    createInterface({ input: proc.stderr }).on('line', (line) => log('warn', `function runtime: ${line}`));
  }

  /** Serves the runtime's port for a runtime on its socket only; a taken port is a failed start. */
  async function servePort(proc: ChildProcess, socket: string) {
    try {
      const server = await listenRuntimePort(options.port, socket);
      if (child !== proc) {
        server.close();
        return;
      }
      portServer = server;
      const address = server.address();
      port = typeof address === 'object' && address !== null ? address.port : null;
      socketPath = socket;
      void onListening(proc);
    } catch (err) {
      log('error', `the function runtime's port ${options.port} could not be served`, { err });
      proc.kill('SIGKILL');
    }
  }

  function closePort() {
    portServer?.close();
    portServer = null;
  }

  /** The runtime process ended (or never started): restart it with backoff unless stopping. */
  function gone(proc: ChildProcess, reason: string) {
    if (child !== proc) return;
    child = null;
    port = null;
    socketPath = null;
    closePort();
    if (healthTimer) clearInterval(healthTimer);
    for (const listener of exitListeners) {
      try {
        listener();
      } catch (err) {
        log('error', 'a runtime exit listener failed', { err });
      }
    }
    retryLater(reason);
  }

  /**
   * Schedules the next start. A runtime that ran a while before dying starts again at once; one
   * that never got running (a taken port, no file descriptors) or dies young backs off, to a cap.
   */
  function retryLater(reason: string) {
    if (status === 'stopped') return;
    status = 'unavailable';
    lastExit = reason;
    failures = runningSince > 0 && Date.now() - runningSince > 30_000 ? 0 : failures + 1;
    const delay = Math.min(100 * 2 ** failures, MAX_BACKOFF_MS);
    nextAttemptAt = Date.now() + delay;
    log('warn', `function runtime exited (${reason}); restarting in ${delay} ms`);
    restartTimer = setTimeout(() => {
      restartTimer = null;
      nextAttemptAt = null;
      if (status === 'unavailable') {
        restarts += 1;
        launch();
      }
    }, delay);
    restartTimer.unref();
  }

  const supervisor: RuntimeSupervisor = {
    get status() {
      return status;
    },
    get health() {
      return {
        status,
        restarts,
        consecutiveFailures: status === 'running' ? 0 : failures,
        lastExit,
        nextAttemptAt: nextAttemptAt === null ? null : new Date(nextAttemptAt).toISOString(),
      };
    },
    get baseUrl() {
      return status === 'running' && port !== null ? `http://127.0.0.1:${port}` : null;
    },
    get port() {
      return port;
    },
    get socketPath() {
      return socketPath;
    },
    token,
    get pid() {
      return child?.pid;
    },
    async start() {
      if (status === 'stopped') {
        status = 'starting';
        if (relay === null) await startRelay();
        launch();
      }
      await supervisor.untilRunning();
    },
    untilRunning() {
      if (status === 'running') return Promise.resolve();
      return new Promise((resolve) => waiters.push(resolve));
    },
    async stop() {
      status = 'stopped';
      if (restartTimer) clearTimeout(restartTimer);
      if (healthTimer) clearInterval(healthTimer);
      const proc = child;
      if (proc && proc.pid !== undefined && proc.exitCode === null && proc.signalCode === null) {
        await new Promise<void>((resolve) => {
          const force = setTimeout(() => proc.kill('SIGKILL'), 2_000);
          proc.once('exit', () => {
            clearTimeout(force);
            resolve();
          });
          proc.kill('SIGTERM');
        });
      }
      closePort();
      await relay?.close();
      relay = null;
      relaySocket = null;
      sockets.remove();
    },
    onReady(hook) {
      readyHooks.push(hook);
    },
    setLogger(next) {
      log = next;
    },
    onExit(listener) {
      exitListeners.push(listener);
    },
    onOutput(listener) {
      outputListeners.add(listener);
      return () => outputListeners.delete(listener);
    },
  };
  return supervisor;
}
