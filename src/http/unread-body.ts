// An answer sent before its request's body was read (an upload refused early): the rest of the
// body is read and dropped, for at most DRAIN_MS, so that Node's parser ends the request and the
// connection serves the client's next request. Left unread, the connection's request never ended:
// it was never idle, so it held a socket, and the server's close(), until the request timeout
// (~70 s), even after the client went away. A body still arriving after DRAIN_MS is cut.
import type { FastifyInstance } from 'fastify';

const DRAIN_MS = 10_000;

export function registerUnreadBodyDrain(app: FastifyInstance): void {
  app.addHook('onResponse', (request, _reply, done) => {
    const body = request.raw;
    // `complete` is false only on a real connection whose body has not all arrived (inject() has none).
    if (body.complete === false && !body.destroyed) {
      const cut = setTimeout(() => body.destroy(), DRAIN_MS);
      cut.unref();
      body.once('close', () => clearTimeout(cut));
      body.resume();
    }
    done();
  });
}
