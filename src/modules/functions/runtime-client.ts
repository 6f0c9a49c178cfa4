// The runtime's control API as Plinth calls it: deploy a function version, remove one, replace
// the environment functions see. Every call carries the runtime's token.
import { AppError } from '../../core/errors.js';
import type { RuntimeSupervisor } from '../../platform/functions-runtime/supervisor.js';

export type DeployResult = { ok: true } | { ok: false; message: string; line: number | null; column: number | null };

export interface RuntimeClient {
  deploy(slug: string, version: number, code: string): Promise<DeployResult>;
  remove(slug: string): Promise<void>;
  setEnv(env: Record<string, string>): Promise<void>;
}

export function createRuntimeClient(runtime: RuntimeSupervisor): RuntimeClient {
  // Control calls also run from the ready hooks, while the runtime is still 'starting'.
  async function call(method: string, path: string, body?: unknown): Promise<Response> {
    if (runtime.port === null) throw new AppError('UPSTREAM_FAILURE', 'The function runtime is not running.');
    try {
      return await fetch(`http://127.0.0.1:${runtime.port}${path}`, {
        method,
        headers: { 'x-plinth-runtime-token': runtime.token, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
    } catch (cause) {
      throw new AppError('UPSTREAM_FAILURE', 'The function runtime could not be reached.', { cause });
    }
  }

  const expectOk = async (res: Response) => {
    if (!res.ok)
      throw new AppError('UPSTREAM_FAILURE', `The function runtime answered ${res.status}: ${await res.text()}`);
    await res.body?.cancel();
  };

  return {
    async deploy(slug, version, code) {
      const res = await call('PUT', `/_plinth/functions/${slug}`, { version, code });
      if (res.status === 422) {
        const body = (await res.json()) as { message: string; line: number | null; column: number | null };
        return { ok: false, message: body.message, line: body.line, column: body.column };
      }
      await expectOk(res);
      return { ok: true };
    },
    async remove(slug) {
      await expectOk(await call('DELETE', `/_plinth/functions/${slug}`));
    },
    async setEnv(env) {
      await expectOk(await call('PUT', '/_plinth/env', { env }));
    },
  };
}
