// SQL of system.sql_snippets: the saved snippets of the SQL editor, by name.
import type { Queryable } from '../../core/db.js';
import type { Snippet } from './sql-snippets.schemas.js';

interface Row extends Omit<Snippet, 'createdAt' | 'updatedAt'> {
  createdAt: Date;
  updatedAt: Date;
}

const COLUMNS = `id::text, name, sql, created_by as "createdBy", created_at as "createdAt", updated_at as "updatedAt"`;

const toSnippet = (r: Row): Snippet => ({
  ...r,
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
});

export async function listSnippets(db: Queryable): Promise<Snippet[]> {
  const rows = await db.unsafe<Row[]>(`select ${COLUMNS} from system.sql_snippets order by lower(name), id`);
  return rows.map(toSnippet);
}

export async function insertSnippet(
  db: Queryable,
  s: { name: string; sql: string; createdBy: string },
  at: Date,
): Promise<Snippet> {
  const [row] = await db.unsafe<Row[]>(
    `insert into system.sql_snippets (name, sql, created_by, created_at, updated_at)
     values ($1, $2, $3, $4, $4) returning ${COLUMNS}`,
    [s.name, s.sql, s.createdBy, at],
  );
  return toSnippet(row!);
}

/** The changed snippet, or undefined when no snippet has this id. */
export async function updateSnippet(
  db: Queryable,
  id: string,
  change: { name?: string; sql?: string },
  at: Date,
): Promise<Snippet | undefined> {
  const [row] = await db.unsafe<Row[]>(
    `update system.sql_snippets set name = coalesce($2, name), sql = coalesce($3, sql), updated_at = $4
     where id = $1 returning ${COLUMNS}`,
    [id, change.name ?? null, change.sql ?? null, at],
  );
  return row ? toSnippet(row) : undefined;
}

export async function deleteSnippet(db: Queryable, id: string): Promise<boolean> {
  const rows = await db.unsafe(`delete from system.sql_snippets where id = $1 returning id`, [id]);
  return rows.length > 0;
}
