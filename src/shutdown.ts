// The server's side of a stop signal: no new connections, in-flight requests drained within a
// grace period, idle keep-alive sockets closed, then the runtime, LISTEN connections, the pool
// and the embedded database, in that order.
import type { FastifyInstance } from 'fastify';
import { settlesWithin } from './core/settles-within.js';
import type { Deps } from './deps.js';

/** How often idle keep-alive sockets are closed while draining (a request that ends leaves one). */
const IDLE_SWEEP_MS = 100;

/** The least time the modules' closing work gets after the grace period (which may be 0). */
const MODULES_CLOSING_MIN_MS = 5_000;

/** The pool's own bound to close (deps.close ends it with a 5 s timeout), plus the runtime's 2 s. */
const RESOURCES_CLOSING_MS = 10_000;

/**
 * The longest a stop may take before the process exits without finishing it: the grace period,
 * the modules' closing work and the resources' closing, each at its own bound, plus a margin.
 */
export function stopDeadlineMs(graceMs: number): number {
  return graceMs + Math.max(graceMs, MODULES_CLOSING_MIN_MS) + RESOURCES_CLOSING_MS + 5_000;
}

export interface StopReport {
  /** Milliseconds from the start of the drain until the app closed (or was given up on). */
  drainedMs: number;
  /** Connections cut when the grace period ran out (0 when every request finished). */
  cutConnections: number;
  /** False when the modules' closing work (which waits on the database) outlived its bound. */
  closed: boolean;
}

/**
 * Closes the HTTP server: waits for in-flight requests, at most `graceMs`, then cuts the rest.
 * The modules' own closing work gets as long again (at least 5 s): a database that stops answering
 * must not hold the stop for good (what still waits on it ends when the pool closes next).
 */
export async function drainHttp(app: FastifyInstance, graceMs: number): Promise<StopReport> {
  const started = Date.now();
  let cutConnections = 0;
  const closing = app.close();
  const sweep = setInterval(() => app.server.closeIdleConnections(), IDLE_SWEEP_MS);
  const grace = setTimeout(() => {
    app.server.getConnections((_err, count) => {
      cutConnections = count;
      app.log.warn(
        { connections: count },
        `shutdown grace period (${graceMs} ms) is over: closing the remaining connections`,
      );
      app.server.closeAllConnections();
    });
  }, graceMs);
  let closed: boolean;
  try {
    closed = await settlesWithin(closing, graceMs + Math.max(graceMs, MODULES_CLOSING_MIN_MS));
    if (closed) await closing;
    // Given up on: it may still fail once the pool closes under it, and that is no longer news.
    else closing.catch(() => {});
  } finally {
    clearInterval(sweep);
    clearTimeout(grace);
  }
  return { drainedMs: Date.now() - started, cutConnections, closed };
}

/**
 * Drains HTTP, then stops everything behind it; resolves with the exit code. Should any step
 * outlive its bound regardless, the process exits 1 at stopDeadlineMs, saying so: a stop ends.
 */
export async function stopServer(app: FastifyInstance, deps: Deps, signal: string): Promise<number> {
  app.log.info(
    { signal, graceMs: deps.config.shutdownGraceMs },
    'shutting down: no new connections, draining requests in flight',
  );
  const deadlineMs = stopDeadlineMs(deps.config.shutdownGraceMs);
  setTimeout(() => {
    app.log.error({ deadlineMs }, 'the stop did not end within its deadline: exiting without finishing it');
    process.exit(1);
  }, deadlineMs).unref();
  let code = 0;
  try {
    const report = await drainHttp(app, deps.config.shutdownGraceMs);
    if (report.closed) app.log.info(report, 'requests drained');
    else {
      app.log.error(report, 'closing the modules did not finish in time after the grace period: stopping without them');
      code = 1;
    }
  } catch (err) {
    app.log.error({ err }, 'closing the HTTP server failed');
    code = 1;
  }
  try {
    await deps.close();
  } catch (err) {
    app.log.error({ err }, 'stopping the database connections, the function runtime or the embedded database failed');
    code = 1;
  }
  app.log.info({ code }, 'stopped');
  return code;
}
