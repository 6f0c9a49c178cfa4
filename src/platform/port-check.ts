// Checks, before anything starts, that every port the server will take is free, so that a taken
// port stops the start with one line naming its setting (not a crash loop or "undefined").
import { createServer } from 'node:net';

export interface PortClaim {
  /** The setting that chose the port (PORT, EMBEDDED_PG_PORT, FUNCTIONS_RUNTIME_PORT). */
  setting: string;
  host: string;
  port: number;
}

/** Why the port cannot be taken, or null when it is free. */
function tryPort(host: string, port: number): Promise<NodeJS.ErrnoException | null> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => resolve(err));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(null)));
  });
}

/** One line per port that cannot be taken (empty when all are free). */
export async function unavailablePorts(claims: PortClaim[]): Promise<string[]> {
  const problems: string[] = [];
  for (const { setting, host, port } of claims) {
    const err = await tryPort(host, port);
    if (!err) continue;
    const reason =
      err.code === 'EADDRINUSE'
        ? 'is already in use: stop what holds it'
        : err.code === 'EACCES'
          ? 'needs privileges this process does not have'
          : `cannot be used on ${host} (${err.code ?? err.message})`;
    problems.push(`${setting} ${port} ${reason} or set ${setting} to a free port`);
  }
  return problems;
}
