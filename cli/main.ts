// The `plinth` command-line tool: every command, the global flags (--url, --api-key, --json), and
// failures as one line on stderr (JSON with --json) and a non-zero exit code. Command files load
// their heavier parts on first use so that `plinth --help` starts fast.
import { Command, CommanderError } from 'commander';
import { CliError } from './cli-error.js';
import { registerAdmin } from './commands/admin.js';
import { registerBackup } from './commands/backup.js';
import { registerChannels } from './commands/channels.js';
import { registerDbQuery } from './commands/db-query.js';
import { registerDbReset } from './commands/db-reset.js';
import { registerFetch } from './commands/fetch.js';
import { registerFunctions } from './commands/functions.js';
import { registerList } from './commands/list.js';
import { registerLogin } from './commands/login.js';
import { registerLogs } from './commands/logs.js';
import { registerNew } from './commands/new.js';
import { registerSchedules } from './commands/schedules.js';
import { registerSecrets } from './commands/secrets.js';
import { registerSites } from './commands/sites.js';
import { registerStorage } from './commands/storage.js';
import { registerTypes } from './commands/types.js';
import { registerUp } from './commands/up.js';
import { registerUpgrade } from './commands/upgrade.js';
import type { CommandContext, GlobalFlags } from './command-context.js';
import { resolveServer } from './project-config.js';

export function buildProgram(ctx: CommandContext): Command {
  const program = new Command('plinth')
    .description('Plinth command-line tool')
    .option('--url <url>', 'server base URL (default: PLINTH_URL, .env, then `plinth login`)')
    .option('--api-key <key>', 'project API key (default: PLINTH_API_KEY, .env, then `plinth login`)')
    .option('--json', 'print the answer (and errors) as JSON for scripts')
    .showHelpAfterError()
    .exitOverride();
  program.configureOutput({ writeErr: (text) => process.stderr.write(text) });
  program.hook('preAction', (_program, action) => {
    ctx.flags = action.optsWithGlobals<GlobalFlags>();
  });
  registerLogin(program, ctx);
  const db = program.command('db').description('database commands');
  registerDbQuery(db, ctx);
  registerTypes(db, ctx);
  registerDbReset(db, ctx);
  const migrations = db
    .command('migrations')
    .description('forward-only SQL migrations in migrations/ (no down or rollback: write a new migration instead)');
  registerNew(migrations, ctx);
  registerList(migrations, ctx);
  registerFetch(migrations, ctx);
  registerUp(migrations, ctx);
  registerFunctions(program, ctx);
  registerSecrets(program, ctx);
  registerStorage(program, ctx);
  registerLogs(program, ctx);
  registerSchedules(program, ctx);
  registerChannels(program, ctx);
  registerBackup(program, ctx);
  registerSites(program, ctx);
  registerUpgrade(program, ctx);
  registerAdmin(program, ctx);
  const all = (c: Command): Command[] => [c, ...c.commands.flatMap(all)];
  for (const command of all(program)) command.exitOverride();
  return program;
}

export async function main(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  const ctx: CommandContext = {
    cwd: process.cwd(),
    env,
    now: () => new Date(),
    out: (line) => process.stdout.write(`${line}\n`),
    err: (text) => process.stderr.write(text),
    interactive: Boolean(process.stdin.isTTY),
    ask: async (question) => {
      const { createInterface } = await import('node:readline/promises');
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      try {
        return await rl.question(question);
      } finally {
        rl.close();
      }
    },
    flags: {},
    api: async () => {
      const { createApiClient } = await import('./api-client.js');
      return createApiClient(await resolveServer(process.cwd(), env, ctx.flags));
    },
  };
  try {
    await buildProgram(ctx).parseAsync(argv);
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    const message = err instanceof CliError ? err.message : `Unexpected failure: ${(err as Error).message}`;
    const json = ctx.flags.json || argv.includes('--json');
    process.stderr.write(
      json
        ? `${JSON.stringify({ error: err instanceof CliError ? (err.extra.code ?? 'CLI_ERROR') : 'UNEXPECTED', message, ...(err instanceof CliError ? { nextActions: err.extra.nextActions, details: err.extra.details } : {}) })}\n`
        : `Error: ${message}\n`,
    );
    return 1;
  }
}
