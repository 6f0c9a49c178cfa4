// `plinth login` stores the server's URL and API key (the global --url and --api-key) in the project
// file after checking them; `plinth config` shows which server the tool would use and from where.
import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import { emit } from '../output.js';
import { maskKey, normaliseUrl, resolveServer, saveProjectFile } from '../project-config.js';
import type { CommandContext } from '../command-context.js';

export function registerLogin(program: Command, ctx: CommandContext): void {
  program
    .command('login')
    .description(
      'check --url and --api-key and store them in .plinth/project.json (flags, PLINTH_URL/PLINTH_API_KEY and .env still win)',
    )
    .action(async () => {
      const { url, apiKey } = ctx.flags;
      if (!url || !apiKey) throw new CliError('Give both: `plinth login --url <url> --api-key <key>`.');
      const server = { url: normaliseUrl(url), apiKey, source: 'flags' };
      const { createApiClient } = await import('../api-client.js');
      await createApiClient(server).history();
      const file = await saveProjectFile(ctx.cwd, { url: server.url, apiKey: server.apiKey });
      emit(ctx, { url: server.url, file }, () => [
        `Logged in to ${server.url}; saved to ${file} (keep it out of version control).`,
      ]);
    });

  program
    .command('config')
    .description('show the server the tool uses and where the setting comes from')
    .action(async () => {
      const server = await resolveServer(ctx.cwd, ctx.env, ctx.flags);
      const shown = { url: server.url, apiKey: maskKey(server.apiKey), source: server.source };
      emit(ctx, shown, () => [`url: ${shown.url}`, `apiKey: ${shown.apiKey}`, `source: ${shown.source}`]);
    });
}
