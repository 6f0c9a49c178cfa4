// Confirmation of a destructive command: --yes, or the user typing the word asked for on a terminal.
import { CliError } from './cli-error.js';
import type { CommandContext } from './command-context.js';

export async function confirm(ctx: CommandContext, what: string, word: string, yes: boolean | undefined) {
  if (yes) return;
  if (!ctx.interactive) throw new CliError(`${what}: not confirmed. Run it in a terminal to confirm, or pass --yes.`);
  const answer = await ctx.ask(`${what}. Type "${word}" to confirm: `);
  if (answer.trim() !== word) throw new CliError(`${what}: not confirmed; nothing was changed.`);
}
