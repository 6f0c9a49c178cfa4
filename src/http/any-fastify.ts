// A Fastify instance whatever its server, logger and type provider: for helpers that register
// content-type parsers or hooks on the app or on one plugin's scope.
import type { FastifyInstance } from 'fastify';

// biome-ignore lint/suspicious/noExplicitAny: Fastify's own "any instance" (every generic left open)
export type AnyFastifyInstance = FastifyInstance<any, any, any, any, any>;
