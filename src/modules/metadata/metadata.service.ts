// The project overview (GET /api/metadata): auth settings and providers, tables with counts,
// buckets, functions — and its Markdown rendering; and one table's full description.
import type { Deps } from '../../deps.js';
import { readAuthConfig } from '../auth/index.js';
import { functionSummaries } from '../functions/index.js';
import { VERSION } from '../health/index.js';
import { databaseSummary, describeTable } from '../database/index.js';
import { configuredProviderNames } from '../oauth/index.js';
import { bucketSummaries } from '../storage/index.js';

export function createMetadataService(deps: Pick<Deps, 'replicas'>) {
  // Reads only: on a read replica that has replayed this server's writes, when one is configured.
  const { replicas } = deps;
  return {
    async overview() {
      const [config, providers, database, buckets, functions] = await replicas.read('server', (sql) =>
        Promise.all([
          readAuthConfig(sql),
          configuredProviderNames(sql),
          databaseSummary(sql),
          bucketSummaries(sql),
          functionSummaries(sql),
        ]),
      );
      const { id: _id, createdAt: _c, updatedAt: _u, ...authConfig } = config;
      return {
        auth: { config: authConfig, oauthProviders: [...providers.builtIn, ...providers.custom].sort() },
        database,
        storage: { buckets: [...buckets] },
        functions: { functions },
        version: VERSION,
      };
    },

    table: (name: string) => replicas.read('server', (sql) => describeTable(sql, name)),
  };
}

export type MetadataService = ReturnType<typeof createMetadataService>;
export type Overview = Awaited<ReturnType<MetadataService['overview']>>;

/** A table cell: backslashes and pipes escaped, line breaks (CR, LF) flattened to spaces. */
const cell = (value: unknown) =>
  String(value)
    .replaceAll('\\', '\\\\')
    .replaceAll('|', '\\|')
    .replace(/[\r\n]+/g, ' ');

/** The overview as a Markdown document (for pasting into notes or an AI assistant's context). */
export function overviewMarkdown(o: Overview): string {
  const lines = [`# Project metadata (Plinth ${o.version})`, '', '## Auth', ''];
  for (const [k, v] of Object.entries(o.auth.config)) lines.push(`- ${k}: ${JSON.stringify(v)}`);
  lines.push(`- OAuth providers: ${o.auth.oauthProviders.join(', ') || 'none'}`, '', '## Database', '');
  lines.push(
    `${o.database.totalTables} tables, ${o.database.totalRecords} records, ${o.database.databaseSize}.`,
    '',
    '| table | records |',
    '|---|---|',
  );
  for (const t of o.database.tables) lines.push(`| ${cell(t.name)} | ${t.recordCount} |`);
  lines.push('', '## Storage', '', '| bucket | public | objects |', '|---|---|---|');
  for (const b of o.storage.buckets) lines.push(`| ${cell(b.name)} | ${b.public} | ${b.objectCount} |`);
  lines.push('', '## Functions', '', '| slug | name | status |', '|---|---|---|');
  for (const f of o.functions.functions) lines.push(`| ${cell(f.slug)} | ${cell(f.name)} | ${f.status} |`);
  return `${lines.join('\n')}\n`;
}
