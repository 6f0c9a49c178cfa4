// The PostgreSQL parser (libpg-query, a WebAssembly module of about 10 MB resident), loaded on the
// first SQL it has to read instead of at start: importing it instantiates the WebAssembly module.
import type * as PgQuery from 'libpg-query';

export type PgParser = typeof PgQuery;

/** The parser, ready for its sync functions too. Node caches the module, so only the first call loads it. */
export async function loadPgParser(): Promise<PgParser> {
  const parser = await import('libpg-query');
  await parser.loadModule();
  return parser;
}
