// The project overview (GET /api/metadata): auth settings and providers, tables with counts,
// buckets, functions — and its Markdown rendering; and one table's full description.
import type { Deps } from '../../deps.js';
import { readAuthConfig } from '../auth/index.js';
import { listFunctions } from '../functions/index.js';
import { VERSION } from '../health/index.js';
import {
  databaseSize,
  listIndexes,
  listPolicies,
  listTriggers,
  readTableSchema,
  tableCounts,
  tableNotFound,
} from '../migrations/index.js';
import { listCustomConfigs, listOAuthConfigs } from '../oauth/index.js';

export function createMetadataService(deps: Pick<Deps, 'sql'>) {
  const { sql } = deps;
  return {
    async overview() {
      const [config, builtIn, custom, tables, size, buckets, functions] = await Promise.all([
        readAuthConfig(sql),
        listOAuthConfigs(sql),
        listCustomConfigs(sql),
        tableCounts(sql),
        databaseSize(sql),
        sql<{ name: string; public: boolean; objectCount: number }[]>`
          select b.name, b.public, (select count(*)::int from storage.objects o where o.bucket = b.name) as "objectCount"
          from storage.buckets b order by b.name`,
        listFunctions(sql),
      ]);
      const { id: _id, createdAt: _c, updatedAt: _u, ...authConfig } = config;
      return {
        auth: {
          config: authConfig,
          oauthProviders: [...builtIn.map((p) => p.provider), ...custom.map((p) => p.key)].sort(),
        },
        database: {
          tables,
          totalTables: tables.length,
          totalRecords: tables.reduce((n, t) => n + t.recordCount, 0),
          databaseSize: size,
        },
        storage: { buckets: [...buckets] },
        functions: {
          functions: functions.map((f) => ({ slug: f.slug, name: f.name, status: f.status, verifyJwt: f.verifyJwt })),
        },
        version: VERSION,
      };
    },

    async table(name: string) {
      const schema = await readTableSchema(sql, name);
      if (!schema) throw tableNotFound(name);
      const [indexes, policies, triggers] = await Promise.all([
        listIndexes(sql, 'public', name),
        listPolicies(sql, 'public', name),
        listTriggers(sql, 'public', name),
      ]);
      const foreignKeys = schema.columns.flatMap((c) =>
        c.foreignKey ? [{ columnName: c.columnName, ...c.foreignKey }] : [],
      );
      return { ...schema, indexes, foreignKeys, policies, triggers };
    },
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
