// The HTTP server Fastify runs on (its `serverFactory`): Node's own server, configured exactly as
// Fastify would configure it, with the admission check (admission.ts) placed before Fastify's
// request listener so that overload is refused without entering Fastify.
import { createServer, type Server, type ServerOptions } from 'node:http';
import { admitAtTheDoor, type AdmissionOptions, type RequestListener } from './admission.js';

interface FastifyServerOptions {
  http?: ServerOptions | null;
  keepAliveTimeout?: number;
  requestTimeout?: number;
  connectionTimeout?: number;
}

export function serverWithAdmission(admission: AdmissionOptions) {
  return (fastifyListener: RequestListener, options: FastifyServerOptions): Server => {
    const server = createServer(options.http ?? {}, admitAtTheDoor(fastifyListener, admission));
    if (options.keepAliveTimeout !== undefined) server.keepAliveTimeout = options.keepAliveTimeout;
    if (options.requestTimeout !== undefined) server.requestTimeout = options.requestTimeout;
    if (options.connectionTimeout !== undefined) server.setTimeout(options.connectionTimeout);
    return server;
  };
}
