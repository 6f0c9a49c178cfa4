// SQL for functions.definitions, and the secrets functions may see (read-only here: the secrets
// module owns system.secrets).
import type { Queryable } from '../../core/db.js';

export interface FunctionRow {
  id: string;
  slug: string;
  name: string;
  description: string | null;
  code: string;
  status: 'draft' | 'active' | 'error';
  verifyJwt: boolean;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  deployedAt: Date | null;
}

export interface NewFunction {
  slug: string;
  name: string;
  description: string | null;
  code: string;
  status: 'draft' | 'active';
  verifyJwt: boolean;
}

export type FunctionChanges = Partial<Omit<NewFunction, 'slug'>>;

const columns = (db: Queryable) => db`
  id, slug, name, description, code, status, verify_jwt as "verifyJwt", version,
  created_at as "createdAt", updated_at as "updatedAt", deployed_at as "deployedAt"`;

export async function listFunctions(db: Queryable): Promise<FunctionRow[]> {
  return db<FunctionRow[]>`select ${columns(db)} from functions.definitions order by created_at desc, slug`;
}

export async function findFunction(db: Queryable, slug: string, lock = false): Promise<FunctionRow | undefined> {
  const [row] = await db<FunctionRow[]>`
    select ${columns(db)} from functions.definitions where slug = ${slug} ${lock ? db`for update` : db``}`;
  return row;
}

export async function listActiveFunctions(db: Queryable): Promise<FunctionRow[]> {
  return db<FunctionRow[]>`select ${columns(db)} from functions.definitions where status = 'active'`;
}

/** Inserts a function; undefined when the slug is taken. */
export async function insertFunction(db: Queryable, f: NewFunction): Promise<FunctionRow | undefined> {
  const [row] = await db<FunctionRow[]>`
    insert into functions.definitions (slug, name, description, code, status, verify_jwt, deployed_at)
    values (${f.slug}, ${f.name}, ${f.description}, ${f.code}, ${f.status}, ${f.verifyJwt},
            case when ${f.status} = 'active' then now() end)
    on conflict (slug) do nothing
    returning ${columns(db)}`;
  return row;
}

/** Applies changes and moves the version on, so runtimes load the new code. */
export async function updateFunction(
  db: Queryable,
  slug: string,
  c: FunctionChanges,
): Promise<FunctionRow | undefined> {
  const [row] = await db<FunctionRow[]>`
    update functions.definitions set
      name = coalesce(${c.name ?? null}, name),
      description = case when ${c.description !== undefined} then ${c.description ?? null} else description end,
      code = coalesce(${c.code ?? null}, code),
      status = coalesce(${c.status ?? null}, status),
      verify_jwt = coalesce(${c.verifyJwt ?? null}::boolean, verify_jwt),
      version = version + 1,
      updated_at = now(),
      deployed_at = case when coalesce(${c.status ?? null}, status) = 'active' then now() else deployed_at end
    where slug = ${slug}
    returning ${columns(db)}`;
  return row;
}

export async function deleteFunction(db: Queryable, slug: string): Promise<boolean> {
  const rows = await db`delete from functions.definitions where slug = ${slug} returning 1`;
  return rows.length > 0;
}
