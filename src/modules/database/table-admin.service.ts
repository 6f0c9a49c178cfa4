// Table administration (api-contract.md §3.3): create a table from a column list (auto id,
// created_at, updated_at; RLS on by default), alter or drop it. Every change is one transaction
// that also bumps the schema version; this server's schema cache is refreshed before answering.
import type postgres from 'postgres';
import { withTx } from '../../core/db.js';
import { AppError } from '../../core/errors.js';
import type { Deps } from '../../deps.js';
import { announceSchemaChange } from './schema-version.repo.js';
import { columnSql, defaultSql, foreignKeyPairs, foreignKeySql, quoteIdent, sqlType, tableRef } from './table-ddl.js';
import type { AlterTable, ColumnUpdate, CreateTable, TableSchema } from './table-admin.schemas.js';
import { findTable, foreignKeysOn, hasForeignKeyNamed, hasPolicy, readTableSchema } from './table-schema.repo.js';
import { tableAdminError } from './table-admin.errors.js';

type Tx = postgres.TransactionSql;

export const AUTO_FIELDS = ['id', 'created_at', 'updated_at'];
const ADMIN_POLICY = 'project_admin_all';

export const tableNotFound = (name: string) =>
  new AppError('NOT_FOUND', `Table "${name}" does not exist in the public schema.`, {
    nextActions: 'Check the name with GET /api/database/tables.',
  });

const columnNotFound = (table: string, column: string) =>
  new AppError('VALIDATION_ERROR', `Column "${column}" does not exist in table "${table}".`, {
    nextActions: `Check the columns with GET /api/database/tables/${table}/schema.`,
  });

function assertDistinct(names: string[], what: string): void {
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) throw new AppError('CONFLICT', `${what} "${name}" is named twice.`);
    seen.add(name);
  }
}

async function createTableSql(input: CreateTable): Promise<string> {
  const reserved = input.columns.find((c) => AUTO_FIELDS.includes(c.columnName));
  if (reserved) {
    throw new AppError('VALIDATION_ERROR', `Column "${reserved.columnName}" is created automatically.`, {
      nextActions: `Leave ${AUTO_FIELDS.join(', ')} out of columns: every table gets them.`,
    });
  }
  assertDistinct(
    input.columns.map((c) => c.columnName),
    'Column',
  );
  const primaryKey = input.columns.filter((c) => c.isPrimaryKey).map((c) => quoteIdent(c.columnName));
  const elements = [
    primaryKey.length > 0
      ? '"id" uuid not null unique default gen_random_uuid()'
      : '"id" uuid primary key default gen_random_uuid()',
    ...(await Promise.all(input.columns.map(columnSql))),
    '"created_at" timestamp with time zone not null default now()',
    '"updated_at" timestamp with time zone not null default now()',
    ...(primaryKey.length > 0 ? [`primary key (${primaryKey.join(', ')})`] : []),
    ...(input.foreignKeys ?? []).map(foreignKeySql),
  ];
  return `create table ${tableRef(input.tableName)} (\n  ${elements.join(',\n  ')}\n)`;
}

/** RLS as asked; a new table also gets the admin-only policy (the event trigger may have added it). */
async function applyRls(tx: Tx, table: string, enabled: boolean): Promise<void> {
  if (!enabled) {
    await tx.unsafe(`alter table ${tableRef(table)} disable row level security`);
    return;
  }
  await tx.unsafe(`alter table ${tableRef(table)} enable row level security`);
  if (!(await hasPolicy(tx, table, ADMIN_POLICY))) {
    await tx.unsafe(
      `create policy ${ADMIN_POLICY} on ${tableRef(table)} as permissive for all to project_admin using (true) with check (true)`,
    );
  }
}

async function updateColumnSql(table: string, u: ColumnUpdate, currentType: string): Promise<string[]> {
  const alter = `alter table ${tableRef(table)} alter column ${quoteIdent(u.columnName)}`;
  const out: string[] = [];
  let type: string | undefined;
  if (u.type !== undefined) {
    type = await sqlType(u.type);
    // A default being replaced must not block the type change (it may not cast to the new type).
    if (u.defaultValue !== undefined) out.push(`${alter} drop default`);
    out.push(`${alter} type ${type} using ${quoteIdent(u.columnName)}::${type}`);
  }
  if (u.isNullable !== undefined) out.push(`${alter} ${u.isNullable ? 'drop' : 'set'} not null`);
  if (u.defaultValue === null) {
    if (type === undefined) out.push(`${alter} drop default`);
  } else if (u.defaultValue !== undefined) {
    out.push(`${alter} set default ${defaultSql(u.defaultValue, type ?? currentType)}`);
  }
  if (u.newColumnName !== undefined && u.newColumnName !== u.columnName) {
    out.push(
      `alter table ${tableRef(table)} rename column ${quoteIdent(u.columnName)} to ${quoteIdent(u.newColumnName)}`,
    );
  }
  return out;
}

export function createTableAdminService(deps: Pick<Deps, 'sql'>, onSchemaChanged: () => Promise<unknown>) {
  /** One transaction; PostgreSQL errors become 4xx; the schema cache is fresh before returning. */
  async function change<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await withTx(deps.sql, async (tx) => {
        await tx`set local lock_timeout = '10s'`;
        const out = await work(tx);
        await announceSchemaChange(tx);
        return out;
      });
    } catch (err) {
      throw tableAdminError(err) ?? err;
    }
    await onSchemaChanged();
    return result;
  }

  async function schemaOf(db: postgres.Sql | Tx, name: string): Promise<TableSchema> {
    const schema = await readTableSchema(db, name);
    if (!schema) throw tableNotFound(name);
    return schema;
  }

  return {
    schemaOf: (name: string) => schemaOf(deps.sql, name),

    async create(input: CreateTable): Promise<TableSchema> {
      const ddl = await createTableSql(input);
      return change(async (tx) => {
        if (await findTable(tx, input.tableName)) {
          throw new AppError('CONFLICT', `Table "${input.tableName}" already exists.`, {
            nextActions: 'Choose another name, or change the table with PATCH …/schema.',
          });
        }
        await tx.unsafe(ddl);
        // updated_at moves on every UPDATE (db/migrations/20261121000950_updated_at_trigger.sql).
        await tx.unsafe(
          `create trigger touch_updated_at before update on ${tableRef(input.tableName)} for each row execute function system.touch_updated_at()`,
        );
        await applyRls(tx, input.tableName, input.rlsEnabled);
        return schemaOf(tx, input.tableName);
      });
    },

    async alter(name: string, changes: AlterTable): Promise<{ tableName: string; operations: string[] }> {
      const statements: string[] = [];
      const operations: string[] = [];
      const ref = tableRef(name);
      return change(async (tx) => {
        const table = await findTable(tx, name);
        if (!table) throw tableNotFound(name);
        const existing = new Map((await readTableSchema(tx, name))!.columns.map((c) => [c.columnName, c.type]));
        const mustExist = (column: string) => {
          if (!existing.has(column)) throw columnNotFound(name, column);
        };
        for (const column of changes.dropForeignKeys ?? []) {
          // As the reference: a foreign-key constraint's name (a column of that name comes first).
          if (!existing.has(column) && (await hasForeignKeyNamed(tx, table.oid, column))) {
            statements.push(`alter table ${ref} drop constraint ${quoteIdent(column)}`);
            operations.push(`dropped the foreign key ${column}`);
            continue;
          }
          if (!existing.has(column))
            throw new AppError(
              'VALIDATION_ERROR',
              `"${column}" is neither a column nor a foreign-key constraint of table "${name}".`,
              { nextActions: `Check the names with GET /api/database/tables/${name}/schema.` },
            );
          const constraints = await foreignKeysOn(tx, table.oid, column);
          if (constraints.length === 0)
            throw new AppError('VALIDATION_ERROR', `Column "${column}" of "${name}" has no foreign key.`);
          for (const c of constraints) statements.push(`alter table ${ref} drop constraint ${quoteIdent(c)}`);
          operations.push(`dropped the foreign key of ${column}`);
        }
        assertDistinct(changes.dropColumns ?? [], 'Column');
        for (const column of changes.dropColumns ?? []) {
          mustExist(column);
          statements.push(`alter table ${ref} drop column ${quoteIdent(column)}`);
          operations.push(`dropped column ${column}`);
        }
        for (const update of changes.updateColumns ?? []) {
          mustExist(update.columnName);
          statements.push(...(await updateColumnSql(name, update, existing.get(update.columnName)!)));
          operations.push(`updated column ${update.columnName}`);
        }
        assertDistinct(
          (changes.addColumns ?? []).map((c) => c.columnName),
          'Column',
        );
        for (const column of changes.addColumns ?? []) {
          if (existing.has(column.columnName) && !(changes.dropColumns ?? []).includes(column.columnName)) {
            throw new AppError('CONFLICT', `Column "${column.columnName}" already exists in table "${name}".`);
          }
          statements.push(`alter table ${ref} add column ${await columnSql(column)}`);
          operations.push(`added column ${column.columnName}`);
        }
        for (const fk of changes.addForeignKeys ?? []) {
          statements.push(`alter table ${ref} add ${foreignKeySql(fk)}`);
          const pairs = foreignKeyPairs(fk);
          operations.push(
            pairs.length === 1
              ? `added a foreign key on ${pairs[0]!.sourceColumn} to ${fk.referenceTable}.${pairs[0]!.referenceColumn}`
              : `added a foreign key on (${pairs.map((p) => p.sourceColumn).join(', ')}) to ${fk.referenceTable} (${pairs.map((p) => p.referenceColumn).join(', ')})`,
          );
        }
        const newName = changes.renameTable?.newTableName;
        if (newName !== undefined && newName !== name) {
          if (await findTable(tx, newName)) throw new AppError('CONFLICT', `Table "${newName}" already exists.`);
          statements.push(`alter table ${ref} rename to ${quoteIdent(newName)}`);
          operations.push(`renamed the table to ${newName}`);
        }
        for (const statement of statements) await tx.unsafe(statement);
        return { tableName: newName ?? name, operations };
      });
    },

    async drop(name: string): Promise<void> {
      await change(async (tx) => {
        if (!(await findTable(tx, name))) throw tableNotFound(name);
        await tx.unsafe(`drop table ${tableRef(name)}`);
      });
    },
  };
}

export type TableAdminService = ReturnType<typeof createTableAdminService>;
