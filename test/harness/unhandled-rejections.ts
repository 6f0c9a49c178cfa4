// Collects the rejections nobody handled in this process (each one would end a server), from now
// until `stop()`.
export function watchUnhandledRejections(): { reasons: unknown[]; stop(): void } {
  const reasons: unknown[] = [];
  const remember = (reason: unknown) => reasons.push(reason);
  process.on('unhandledRejection', remember);
  return { reasons, stop: () => process.off('unhandledRejection', remember) };
}

/** One turn of the event loop: where Node reports a rejection nobody handled. */
export const oneLoopTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
