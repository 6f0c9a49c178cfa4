// `plinth db reset`: for a local development server only (a loopback URL, unless --force) and
// confirmed: drops every table, view, sequence, function and type of the public schema, forgets the
// applied-migration history, applies migrations/ again and runs seed.sql when the folder has one.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import { confirm } from '../confirm.js';
import type { CommandContext } from '../command-context.js';
import { readLocalDirectory } from '../migration-files.js';
import { emit, say } from '../output.js';
import { runSql } from './db-query.js';
import { applyPending } from './up.js';

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export const isLocalUrl = (url: string) => {
  const host = new URL(url).hostname;
  return LOCAL_HOSTS.has(host) || host.endsWith('.localhost');
};

/** Every droppable object of the public schema (extension members left alone), as DROP statements. */
const LIST_OBJECTS = `
select format('drop %s if exists %s cascade', kind, name) as statement from (
  select case c.relkind when 'v' then 'view' when 'm' then 'materialized view' when 'S' then 'sequence'
           when 'f' then 'foreign table' else 'table' end as kind,
         format('%I.%I', n.nspname, c.relname) as name, 1 as rank
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
   where n.nspname = 'public' and c.relkind in ('r', 'p', 'v', 'm', 'S', 'f')
     and not exists (select 1 from pg_depend d where d.objid = c.oid and d.deptype in ('e', 'a', 'i'))
  union all
  select case p.prokind when 'p' then 'procedure' when 'a' then 'aggregate' else 'function' end,
         format('%I.%I(%s)', n.nspname, p.proname, pg_get_function_identity_arguments(p.oid)), 2
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace
   where n.nspname = 'public' and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')
  union all
  select case t.typtype when 'd' then 'domain' else 'type' end, format('%I.%I', n.nspname, t.typname), 3
    from pg_type t join pg_namespace n on n.oid = t.typnamespace
   where n.nspname = 'public' and (t.typtype in ('e', 'd', 'r') or (t.typtype = 'c' and
         (select relkind from pg_class where oid = t.typrelid) = 'c'))
     and not exists (select 1 from pg_depend d where d.objid = t.oid and d.deptype = 'e')
) objects order by rank`;

export function registerDbReset(db: Command, ctx: CommandContext): void {
  db.command('reset')
    .description(
      'local development server only: drop every public table, view, function and type, then apply migrations/ and seed.sql (confirmed)',
    )
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--force', 'allow a server that is not on this machine (loopback URL)')
    .option('--seed <file>', 'the seed file run after the migrations', 'seed.sql')
    .action(async (options: { yes?: boolean; force?: boolean; seed: string }) => {
      const api = await ctx.api();
      if (!isLocalUrl(api.url) && !options.force)
        throw new CliError(
          `Refusing to reset ${api.url}: it is not a local server (localhost/127.0.0.1). Pass --force if you really mean to wipe it.`,
        );
      await confirm(ctx, `Resetting ${api.url} deletes every table and row of the public schema`, 'reset', options.yes);
      const local = await readLocalDirectory(ctx.cwd);
      const { rows } = await runSql(api, LIST_OBJECTS);
      const drops = rows.map((r) => String(r.statement));
      if (drops.length > 0) await runSql(api, `${drops.join(';\n')};`);
      await api.call('DELETE', '/api/database/migrations');
      say(ctx, `Dropped ${drops.length} object${drops.length === 1 ? '' : 's'} and the migration history.`);
      const applied = await applyPending(ctx, api, local);
      const seedPath = path.resolve(ctx.cwd, options.seed);
      const seeded = existsSync(seedPath);
      if (seeded) await runSql(api, await readFile(seedPath, 'utf8'));
      emit(ctx, { dropped: drops.length, applied, seeded: seeded ? options.seed : null }, () => [
        `Reset ${api.url}: ${drops.length} object${drops.length === 1 ? '' : 's'} dropped, ${applied.length} migration${applied.length === 1 ? '' : 's'} applied${seeded ? `, seeded from ${options.seed}` : ''}.`,
      ]);
    });
}
