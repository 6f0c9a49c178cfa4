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
