// The one error type of the command-line tool: a single line saying what went wrong and what to do,
// with the server's error code, nextActions and details when the server gave them.
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly extra: { code?: string; nextActions?: string; details?: unknown; status?: number } = {},
  ) {
    super(message);
  }
}

/** One line for the terminal: the message, then the hint if there is one. */
export const oneLine = (message: string, hint?: string) =>
  [message, hint]
    .filter(Boolean)
    .join(' ')
    .replace(/\s*\n\s*/g, ' ');
