// `plinth functions list|deploy|delete|invoke`: the project's edge functions. deploy creates or
// updates from a local file; a syntax error comes back from the server as file:line:column.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import type { CommandContext } from '../command-context.js';
import { emit, objectTable } from '../output.js';

interface FunctionSummary {
  slug: string;
  name: string;
  status: string;
  version: number;
  updatedAt: string;
}

/** The code file of a function: the given path, or functions/<slug>.{ts,js} or functions/<slug>/index.{ts,js}. */
function codeFile(cwd: string, slug: string, file: string | undefined): string {
  if (file) return path.resolve(cwd, file);
  const candidates = ['.ts', '.js', '/index.ts', '/index.js'].map((end) =>
    path.join(cwd, 'functions', `${slug}${end}`),
  );
  const found = candidates.find((c) => existsSync(c));
  if (!found)
    throw new CliError(
      `No code file for ${slug}: give one (\`plinth functions deploy ${slug} <file>\`) or create functions/${slug}.ts.`,
    );
  return found;
}

export function registerFunctions(program: Command, ctx: CommandContext): void {
  const functions = program.command('functions').description('edge functions: list, deploy, delete, invoke');

  functions
    .command('list')
    .description('list the functions with their status and version')
    .action(async () => {
      const answer = await (await ctx.api()).call<{ functions: FunctionSummary[] }>('GET', '/api/functions');
      emit(ctx, answer.functions, () =>
        answer.functions.length === 0
          ? ['No functions. Deploy one with `plinth functions deploy <slug> <file>`.']
          : objectTable(answer.functions as unknown as Record<string, unknown>[], [
              'slug',
              'name',
              'status',
              'version',
              'updatedAt',
            ]),
      );
    });

  functions
    .command('deploy')
    .description('create or update a function from a file (default functions/<slug>.ts); syntax errors show their line')
    .argument('<slug>', 'the function slug (letters, digits, - and _)')
    .argument('[file]', 'the code file')
    .option('--name <name>', 'display name (default: the slug)')
    .option('--description <text>', 'description')
    .option('--draft', 'store without deploying (status draft)')
    .action(
      async (
        slug: string,
        file: string | undefined,
        options: { name?: string; description?: string; draft?: boolean },
      ) => {
        const filePath = codeFile(ctx.cwd, slug, file);
        const code = await readFile(filePath, 'utf8').catch(() => {
          throw new CliError(`Cannot read ${filePath}.`);
        });
        const api = await ctx.api();
        const fields = {
          code,
          status: options.draft ? 'draft' : 'active',
          ...(options.description !== undefined ? { description: options.description } : {}),
        };
        const exists = await api.call('GET', `/api/functions/${encodeURIComponent(slug)}`).then(
          () => true,
          (err: CliError) => {
            if (err.extra?.status === 404) return false;
            throw err;
          },
        );
        let answer: { function: FunctionSummary; deployment: { status: string; url: string | null } | null };
        try {
          answer = exists
            ? await api.call('PUT', `/api/functions/${encodeURIComponent(slug)}`, {
                json: { ...fields, ...(options.name ? { name: options.name } : {}) },
              })
            : await api.call('POST', '/api/functions', { json: { ...fields, slug, name: options.name ?? slug } });
        } catch (err) {
          const details = (err as CliError).extra?.details as
            | { line?: number | null; column?: number | null }
            | undefined;
          if (typeof details?.line === 'number') {
            const where = `${path.relative(ctx.cwd, filePath)}:${details.line}${details.column ? `:${details.column}` : ''}`;
            throw new CliError(`${where}: ${(err as Error).message}`, (err as CliError).extra);
          }
          throw err;
        }
        emit(ctx, answer, () => [
          `${exists ? 'Updated' : 'Created'} ${slug} (version ${answer.function.version}, ${answer.function.status})${answer.deployment?.url ? `: ${answer.deployment.url}` : ''}`,
        ]);
      },
    );

  functions
    .command('delete')
    .description('delete a function permanently')
    .argument('<slug>')
    .action(async (slug: string) => {
      const answer = await (await ctx.api()).call<{ message: string }>(
        'DELETE',
        `/api/functions/${encodeURIComponent(slug)}`,
      );
      emit(ctx, answer, () => [answer.message]);
    });

  functions
    .command('invoke')
    .description('call a function and print its answer')
    .argument('<slug>')
    .option('-X, --method <method>', 'HTTP method', 'POST')
    .option('-d, --data <json>', 'JSON request body')
    .action(async (slug: string, options: { method: string; data?: string }) => {
      if (options.data !== undefined) {
        try {
          JSON.parse(options.data);
        } catch {
          throw new CliError(`--data is not valid JSON: ${options.data}`);
        }
      }
      const res = await (await ctx.api()).send(options.method.toUpperCase(), `/functions/${encodeURIComponent(slug)}`, {
        ...(options.data !== undefined ? { body: options.data, headers: { 'content-type': 'application/json' } } : {}),
      });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // Not JSON: printed as text.
      }
      emit(ctx, { status: res.status, body }, () => [text]);
    });
}
