// `plinth db types`: prints the generated `Database` type for @supabase/postgrest-js and
// supabase-js (`plinth db types > database.types.ts`).
import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';

export function registerTypes(db: Command, ctx: CommandContext): void {
  db.command('types')
    .description('print TypeScript types of the database (the Database type supabase-js/postgrest-js use)')
    .action(async () => {
      const text = await (await ctx.api()).types();
      if (ctx.flags.json) ctx.out(JSON.stringify({ lang: 'typescript', types: text }));
      else ctx.out(text.trimEnd());
    });
}
