// SQL of row-change filtering: which subscriber scopes may SELECT a row as a change's image shows
// it (the image the event carries, never the row as it is by delivery time). One transaction as
// the server's role, always rolled back: for each scope (one per group of subscribers with the
// same role and claims) one query runs under that role and claims, as the records API's request
// scope sets them, all scopes pipelined together. The row is checked in place (one round trip;
// when the image is the row as it is now, the common case, that is all); an image that differs
// (a deleted row, the old side of an update, a row changed again since) is put in the row's place first (triggers and foreign keys off where the server may do that), so the table's
// own policies judge it. The schema version is read on the way (readable-columns.ts caches by it).
import type postgres from 'postgres';
import { type Queryable, type RequestScope, runRolledBack, type Sql } from '../../core/db.js';

export interface RowCheck {
  /** The table, schema-qualified and quoted. */
  table: string;
  /** The primary key's values by column. */
  key: Record<string, unknown>;
}

export type RowImage = Record<string, unknown>;

export interface ImagesVisibility {
  /** Per image, per scope: may the scope SELECT the row as that image shows it (and, when asked, as it is now). */
  seen: boolean[][];
  /** system.schema_version, or null when DDL does not move it (no event trigger: nothing may be cached). */
  schemaVersion: string | null;
}

const ROLLBACK = Symbol('rollback');

/**
 * Runs the read-only check of the row as it is now: on the pool by default, on a read replica
 * that has replayed everything committed by now when replicas are configured. Putting an older
 * image in the row's place writes (rolled back), so that always runs on the primary.
 */
export type ReadNow = <T>(work: (sql: Sql) => Promise<T>) => Promise<T>;
const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

function keyMatch(check: RowCheck): string {
  const columns = Object.keys(check.key);
  const own = columns.map((c) => `t.${quote(c)}`).join(', ');
  const given = columns.map((c) => `r.${quote(c)}`).join(', ');
  return `(${own}) = (select ${given} from jsonb_populate_record(null::${check.table}, $1::text::jsonb) r)`;
}

/** The schema version, when DDL moves it (the event trigger of the records migration is there). */
const VERSION_SQL = `select v.version::text as version,
  exists (select from pg_event_trigger where evtname = 'plinth_note_ddl' and evtenabled <> 'D') as tracked
  from system.schema_version v`;

function versionOf(rows: postgres.Row[] | undefined): string | null {
  const row = rows?.[0];
  return row?.tracked ? (row.version as string) : null;
}

/** Is the row as it is now exactly `image` (as the server's role)? */
function sameAsNow(conn: Queryable, check: RowCheck, image: RowImage) {
  return conn.unsafe(
    `select to_jsonb(t) = $2::text::jsonb as same from ${check.table} t where ${keyMatch(check)} limit 1`,
    [JSON.stringify(check.key), JSON.stringify(image)],
    { prepare: true },
  );
}

/** Statements per scope in the pipelines below; the third is the visibility query. */
const STEPS = 5;

/**
 * The statements checking every scope, pipelined together (one round trip once they are
 * prepared on the connection): each scope runs in a savepoint rolled back at once, so the role
 * and claims it set are undone, and an error of its own (no SELECT grant, its statement timeout)
 * costs it alone.
 */
function visibilitySteps(conn: Queryable, check: RowCheck, scopes: RequestScope[]) {
  return scopedSteps(
    conn,
    `select 1 from ${check.table} t where ${keyMatch(check)} limit 1`,
    JSON.stringify(check.key),
    scopes,
  );
}

/** `select` (one text parameter, `param`) once per scope, each in its role and claims, as above. */
function scopedSteps(conn: Queryable, select: string, param: string, scopes: RequestScope[]) {
  return scopes.flatMap((scope) => [
    conn.unsafe('savepoint row_check'),
    conn.unsafe(
      `select set_config('role', $1, true), set_config('request.jwt.claims', $2, true), set_config('statement_timeout', $3, true)`,
      [scope.role, JSON.stringify(scope.claims), String(scope.statementTimeoutMs ?? 0)],
      { prepare: true },
    ),
    conn.unsafe(select, [param], { prepare: true }),
    conn.unsafe('rollback to savepoint row_check'),
    conn.unsafe('release savepoint row_check'),
  ]);
}

/** Which scopes saw the row, from the outcomes of visibilitySteps' statements. */
function seeing(settled: PromiseSettledResult<postgres.Row[]>[], scopes: RequestScope[]): boolean[] {
  return scopes.map((_, i) => {
    const answer = settled[i * STEPS + 2];
    return answer?.status === 'fulfilled' && answer.value.length > 0;
  });
}

async function scopesSeeing(tx: postgres.TransactionSql, check: RowCheck, scopes: RequestScope[]): Promise<boolean[]> {
  return seeing(await Promise.allSettled(visibilitySteps(tx, check, scopes)), scopes);
}

/** Puts `image` in the row's place (in the transaction); false when it cannot be put there. */
async function replay(tx: postgres.TransactionSql, check: RowCheck, image: RowImage): Promise<boolean> {
  await tx.savepoint((sp) => sp.unsafe(`set local session_replication_role = replica`)).catch(() => {});
  const columns = (
    await tx.unsafe<{ name: string }[]>(
      `select attname as name from pg_attribute
       where attrelid = $1::regclass and attnum > 0 and not attisdropped and attgenerated = ''`,
      [check.table],
    )
  ).map((c) => quote(c.name));
  return tx
    .savepoint(async (sp) => {
      await sp.unsafe(`delete from ${check.table} t where ${keyMatch(check)}`, [JSON.stringify(check.key)]);
      await sp.unsafe(
        `insert into ${check.table} (${columns.join(', ')}) overriding system value
         select ${columns.join(', ')} from jsonb_populate_record(null::${check.table}, $1::text::jsonb)`,
        [JSON.stringify(image)],
      );
    })
    .then(
      () => true,
      () => false,
    );
}

/**
 * For each image and each scope: may the scope see the row as the image shows it, and with
 * `now` also as the row is now (an INSERT's or UPDATE's row must still be visible at delivery)?
 * With `now`, the first image (the new row) is compared with the row as it is now in the same
 * round trip as the check of the row in place, and when they are the same that check answers
 * for it; any other image is put in the row's place in one rolled-back transaction and checked
 * there, for the scopes that see the row now.
 */
export async function imagesVisibility(
  sql: Sql,
  check: RowCheck,
  scopes: RequestScope[],
  images: RowImage[],
  wanted: { now: boolean },
  readNow: ReadNow = (work) => work(sql),
): Promise<ImagesVisibility> {
  const none = scopes.map(() => false);
  const seen: (boolean[] | undefined)[] = images.map(() => undefined);
  let now: boolean[] | undefined;
  let schemaVersion: string | null = null;
  const first = images[0];
  if (wanted.now && first) {
    const settled = await readNow((reader) =>
      runRolledBack(reader, (conn) => [
        conn.unsafe(VERSION_SQL, [], { prepare: true }),
        sameAsNow(conn, check, first),
        ...visibilitySteps(conn, check, scopes),
      ]),
    );
    schemaVersion = versionOf(settled[0]?.status === 'fulfilled' ? settled[0].value : undefined);
    now = seeing(settled.slice(2), scopes);
    if (settled[1]?.status === 'fulfilled' && settled[1].value[0]?.same === true) seen[0] = now;
    // Nobody sees the row now: no image of it is sent, nothing to put back.
    if (seen.every(Boolean) || !now.includes(true)) return { seen: seen.map((s) => s ?? none), schemaVersion };
  }
  const candidates = now ? scopes.filter((_, i) => now?.[i]) : scopes;
  const spread = (answers: boolean[]) => {
    let next = 0;
    return scopes.map((_, i) => (now && !now[i] ? false : (answers[next++] ?? false)));
  };
  await sql
    .begin(async (tx) => {
      if (!wanted.now) schemaVersion = versionOf(await tx.unsafe(VERSION_SQL));
      for (const [i, image] of images.entries()) {
        if (seen[i]) continue;
        seen[i] = (await replay(tx, check, image)) ? spread(await scopesSeeing(tx, check, candidates)) : none;
      }
      throw ROLLBACK;
    })
    .catch((err) => {
      if (err !== ROLLBACK) throw err;
    });
  return { seen: seen.map((s) => s ?? none), schemaVersion };
}

export interface RowsNow {
  /** Per row: is its image the row as it is now (as the server's role sees it)? */
  same: boolean[];
  /** Per row, per scope: may the scope SELECT the row as it is now? */
  seen: boolean[][];
  schemaVersion: string | null;
}

/**
 * The check of the row as it is now (imagesVisibility's first round trip) for many rows of one
 * table at once: one rolled-back transaction, one statement comparing every image with its row,
 * and one query per scope returning the positions of the rows it may SELECT. The rows are given
 * as their primary key values (the same columns for each) and the image each change carries.
 */
export async function rowsNowVisibility(
  sql: Sql,
  table: string,
  rows: { key: Record<string, unknown>; image: RowImage }[],
  scopes: RequestScope[],
  readNow: ReadNow = (work) => work(sql),
): Promise<RowsNow> {
  const columns = Object.keys(rows[0]?.key ?? {});
  const given = `jsonb_array_elements($1::text::jsonb) with ordinality as r (x, n)
    cross join lateral jsonb_populate_record(null::${table}, r.x -> 'k') k`;
  const match = columns.map((c) => `t.${quote(c)} = k.${quote(c)}`).join(' and ');
  const param = JSON.stringify(rows.map((row) => ({ k: row.key, i: row.image })));
  const settled = await readNow((reader) =>
    runRolledBack(reader, (conn) => [
      conn.unsafe(VERSION_SQL, [], { prepare: true }),
      conn.unsafe(`select r.n from ${given} join ${table} t on ${match} where to_jsonb(t) = r.x -> 'i'`, [param], {
        prepare: true,
      }),
      ...scopedSteps(
        conn,
        `select r.n from ${given} where exists (select from ${table} t where ${match})`,
        param,
        scopes,
      ),
    ]),
  );
  const positions = (answer: PromiseSettledResult<postgres.Row[]> | undefined) =>
    new Set(answer?.status === 'fulfilled' ? answer.value.map((row) => Number(row.n) - 1) : []);
  const same = positions(settled[1]);
  const seenBy = scopes.map((_, i) => positions(settled[2 + i * STEPS + 2]));
  return {
    same: rows.map((_, n) => same.has(n)),
    seen: rows.map((_, n) => seenBy.map((seen) => seen.has(n))),
    schemaVersion: versionOf(settled[0]?.status === 'fulfilled' ? settled[0].value : undefined),
  };
}
