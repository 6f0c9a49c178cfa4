import { type ChildProcess, fork } from 'node:child_process';
import path from 'node:path';
// The child side of a bench client process (load-worker, open-loop-worker, probe-worker): says
// ready, takes one spec over IPC, answers with the result or the error, then exits. It ends with
// the benchmark (Ctrl-C, crash) rather than firing at servers that are gone.
export function serveOneRun<Spec, Result>(run: (spec: Spec) => Promise<Result>): void {
  process.once('disconnect', () => process.exit(1));
  process.send?.({ ready: true });
  process.once('message', (spec: Spec) => {
    run(spec).then(
      (result) => process.send?.({ result }, () => process.exit(0)),
      (err: unknown) =>
        process.send?.({ error: String(err instanceof Error ? err.stack : err) }, () => process.exit(1)),
    );
  });
}

/**
 * The parent side of a long-lived bench client process (bench/workers/<worker>.ts): `ask` sends one
 * command and resolves with its reply (rejects with the reply's error).
 */
export function clientProcess(worker: string) {
  const child: ChildProcess = fork(path.join(import.meta.dirname, '../workers', worker), {
    execArgv: ['--import', 'tsx'],
  });
  const ask = <T>(command: object): Promise<T> =>
    new Promise((resolve, reject) => {
      child.once('message', (reply: { error?: string }) =>
        reply.error ? reject(new Error(reply.error)) : resolve(reply as T),
      );
      child.send(command);
    });
  return { ask, child };
}
