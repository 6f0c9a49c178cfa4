// Start-up refuses a taken port before starting anything: one line naming the setting, exit 1,
// for the API port, the function runtime's port and the embedded database's port.
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../harness/free-port.js';
import { createDatabase } from '../../harness/test-database.js';
import { spawnServer, type ServerProcess } from '../../harness/server-process.js';

let holder: Server | undefined;
let server: ServerProcess | undefined;

afterEach(async () => {
  await server?.close({ stopSignal: 'SIGKILL' });
  server = undefined;
  await new Promise<void>((resolve) => (holder ? holder.close(() => resolve()) : resolve()));
  holder = undefined;
});

/** Listens on a free loopback port, as another program holding it would. */
async function holdPort(): Promise<number> {
  const port = await freePort();
  holder = createServer();
  await new Promise<void>((resolve) => holder!.listen(port, '127.0.0.1', resolve));
  return port;
}

/** The exit code, or 'still running' when the process does not end within `ms`. */
function exitWithin(s: ServerProcess, ms: number): Promise<number | string> {
  return Promise.race([
    s.exited.then((exit) => exit.code ?? exit.signal ?? 'unknown'),
    new Promise<string>((resolve) => setTimeout(() => resolve('still running'), ms).unref()),
  ]);
}

describe('a taken port', () => {
  it.each([
    ['PORT', 'external'],
    ['FUNCTIONS_RUNTIME_PORT', 'external'],
    ['EMBEDDED_PG_PORT', 'embedded'],
  ] as const)('%s stops the start with one line naming it (%s database)', async (setting, mode) => {
    const port = await holdPort();
    const env: Record<string, string> = { [setting]: String(port) };
    if (mode === 'external') env.DATABASE_URL = await createDatabase();
    server = await spawnServer({ env });
    expect(await exitWithin(server, 60_000)).toBe(1);
    expect(server.stderr().trim()).toBe(
      `${setting} ${port} is already in use: stop what holds it or set ${setting} to a free port`,
    );
    expect(server.stdout()).not.toContain('Plinth is listening');
  });
});
