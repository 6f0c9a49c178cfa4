// `plinth login` stores the server's URL and API key in the project file after checking them;
// `plinth config` shows which server the tool would use and where that came from.
import type { Command } from 'commander';
import { createApiClient } from '../api-client.js';
import { maskKey, normaliseUrl, resolveServer, saveProjectFile } from '../project-config.js';
import type { CommandContext } from '../main.js';

export function registerLogin(program: Command, ctx: CommandContext): void {
  program
    .command('login')
    .description('store the server URL and API key in .plinth/project.json (PLINTH_URL/PLINTH_API_KEY still win)')
    .requiredOption('--url <url>', 'base URL of the Plinth server, e.g. http://localhost:7130')
    .requiredOption('--api-key <key>', 'the project API key (ik_…)')
    .action(async (options: { url: string; apiKey: string }) => {
      const server = { url: normaliseUrl(options.url), apiKey: options.apiKey, source: 'project file' as const };
      await createApiClient(server).history();
      const file = await saveProjectFile(ctx.cwd, { url: server.url, apiKey: server.apiKey });
      ctx.out(`Logged in to ${server.url}; saved to ${file} (keep it out of version control).`);
    });

  program
    .command('config')
    .description('show the server the tool uses and where the setting comes from')
    .action(async () => {
      const server = await resolveServer(ctx.cwd, ctx.env);
      ctx.out(`url: ${server.url}\napiKey: ${maskKey(server.apiKey)}\nsource: ${server.source}`);
    });
}
