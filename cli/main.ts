// The `plinth` command-line tool: login/config, `db migrations new|list|fetch|up` and `db types`. Every
// failure ends as one line on stderr and a non-zero exit code.
import { Command, CommanderError } from 'commander';
import { createApiClient, type ApiClient } from './api-client.js';
import { CliError } from './cli-error.js';
import { registerFetch } from './commands/fetch.js';
import { registerList } from './commands/list.js';
import { registerLogin } from './commands/login.js';
import { registerNew } from './commands/new.js';
import { registerTypes } from './commands/types.js';
import { registerUp } from './commands/up.js';
import { resolveServer } from './project-config.js';

export interface CommandContext {
  cwd: string;
  env: Record<string, string | undefined>;
  now(): Date;
  out(line: string): void;
  /** The API client for the configured server (resolved when a command first needs it). */
  api(): Promise<ApiClient>;
}

export function buildProgram(ctx: CommandContext): Command {
  const program = new Command('plinth').description('Plinth command-line tool').exitOverride();
  program.configureOutput({ writeErr: (text) => process.stderr.write(text) });
  registerLogin(program, ctx);
  const db = program.command('db').description('database commands');
  registerTypes(db, ctx);
  const migrations = db
    .command('migrations')
    .description('forward-only SQL migrations in migrations/ (no down or rollback: write a new migration instead)');
  registerNew(migrations, ctx);
  registerList(migrations, ctx);
  registerFetch(migrations, ctx);
  registerUp(migrations, ctx);
  for (const command of [program, ...program.commands, ...program.commands.flatMap((c) => c.commands)])
    command.exitOverride();
  return program;
}

export async function main(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  const ctx: CommandContext = {
    cwd: process.cwd(),
    env,
    now: () => new Date(),
    out: (line) => process.stdout.write(`${line}\n`),
    api: async () => createApiClient(await resolveServer(process.cwd(), env)),
  };
  try {
    await buildProgram(ctx).parseAsync(argv);
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    const message = err instanceof CliError ? err.message : `Unexpected failure: ${(err as Error).message}`;
    process.stderr.write(`Error: ${message}\n`);
    return 1;
  }
}
