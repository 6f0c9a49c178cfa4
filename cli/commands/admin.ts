// `plinth admin reset-password [email]`: for the operator who lost the generated admin password.
// It works on the server's database and master key directly, not over HTTP (no credential is
// left to call the API with): run it in the Plinth server's folder with the server's environment,
// like `plinth upgrade check`. The work is the server's own code (dist/admin-password-reset.js).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { CliError, oneLine } from '../cli-error.js';
import type { CommandContext } from '../command-context.js';
import { emit } from '../output.js';

interface ResetModule {
  resetAdminPassword(
    env: Record<string, string | undefined>,
    options: { email?: string; password?: string },
  ): Promise<{ email: string; password: string; database: string }>;
  ResetRefused: new (...args: never[]) => Error & { nextActions: string };
}

/** The compiled server code of the Plinth install this tool belongs to (cli/dist/ → dist/). */
const resetModuleUrl = () => new URL('../../dist/admin-password-reset.js', import.meta.url);

async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text.replace(/\r?\n$/, '');
}

export function registerAdmin(program: Command, ctx: CommandContext): void {
  const admin = program
    .command('admin')
    .description("operator commands, run in the Plinth server's folder on its own database");

  admin
    .command('reset-password')
    .description(
      "replace the admin password (stored, encrypted, in the server's database) and print the new one once; works while the server runs",
    )
    .argument('[email]', "the admin's email, checked against the server's (ADMIN_EMAIL, default admin@plinth.local)")
    .option('--password-stdin', 'read the new password from stdin (8 or more characters) instead of generating one')
    .action(async (email: string | undefined, options: { passwordStdin?: boolean }) => {
      const url = resetModuleUrl();
      if (!existsSync(fileURLToPath(url)))
        throw new CliError(
          oneLine(
            `This plinth is not part of a built Plinth server (no ${fileURLToPath(url)}).`,
            "Run `npx plinth admin reset-password` in the server's folder (after `npm install`, which builds it).",
          ),
        );
      const password = options.passwordStdin ? await readStdin() : undefined;
      const { resetAdminPassword, ResetRefused } = (await import(url.href)) as ResetModule;
      let result: Awaited<ReturnType<ResetModule['resetAdminPassword']>>;
      try {
        result = await resetAdminPassword(ctx.env, { email, password });
      } catch (err) {
        if (err instanceof ResetRefused)
          throw new CliError(oneLine(err.message, err.nextActions), {
            code: 'RESET_REFUSED',
            nextActions: err.nextActions,
          });
        throw err;
      }
      const shown = options.passwordStdin
        ? { email: result.email }
        : { email: result.email, password: result.password };
      emit(ctx, { ...shown, database: result.database }, () =>
        options.passwordStdin
          ? [`The admin password of ${result.email} is replaced (in ${result.database}).`]
          : [
              `New admin password of ${result.email} (in ${result.database}):`,
              `  ${result.password}`,
              'It is shown once and works at once, on every server. Sign in and keep it somewhere safe.',
            ],
      );
    });
}
