// Pieces of DDL for table administration, built only from validated input: identifiers quoted,
// defaults as typed literals (or a few known expressions), raw SQL types checked with the real
// PostgreSQL parser so a "type" can never carry more SQL than a type name.
import type { ParseResult } from 'libpg-query';
import { AppError } from '../../core/errors.js';
import { loadPgParser } from './pg-parser.js';
import { FRIENDLY_TYPES, type AnyForeignKey, type ColumnDefinition } from './table-admin.schemas.js';

export const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;
/** A string literal; standard_conforming_strings is on in every supported PostgreSQL. */
export const quoteLiteral = (value: string) => `'${value.replaceAll("'", "''")}'`;
export const tableRef = (name: string) => `public.${quoteIdent(name)}`;

export const referenceRef = (name: string) => {
  const [schema, table] = name.includes('.') ? name.split('.') : ['public', name];
  return `${quoteIdent(schema!)}.${quoteIdent(table!)}`;
};

const RAW_TYPE_CHARS = /^[A-Za-z0-9_ .,()[\]]+$/;

const badType = (type: string, why: string) =>
  new AppError('VALIDATION_ERROR', `"${type}" is not a column type: ${why}.`, {
    details: { type },
    nextActions: `Use one of ${Object.keys(FRIENDLY_TYPES).join(', ')}, or a PostgreSQL type name such as varchar(255), numeric(10,2) or text[].`,
  });

/** The SQL type of a column: a friendly type's PostgreSQL type, or a raw type that parses as one. */
export async function sqlType(type: string): Promise<string> {
  const friendly = FRIENDLY_TYPES[type.toLowerCase() as keyof typeof FRIENDLY_TYPES];
  if (friendly) return friendly;
  if (!RAW_TYPE_CHARS.test(type))
    throw badType(type, 'only letters, digits, spaces, dots, commas, brackets and parentheses may appear in a type');
  const parser = await loadPgParser();
  let stmts: ParseResult['stmts'];
  try {
    ({ stmts } = await parser.parse(`select null::${type}`));
  } catch {
    throw badType(type, 'it does not parse as a type name');
  }
  const select =
    stmts?.length === 1 ? (stmts[0]!.stmt as { SelectStmt?: Record<string, unknown> }).SelectStmt : undefined;
  const targets = select?.targetList as { ResTarget?: { val?: { TypeCast?: unknown } } }[] | undefined;
  const onlyACast = select && Object.keys(select).every((k) => ['targetList', 'limitOption', 'op'].includes(k));
  if (!onlyACast || targets?.length !== 1 || !targets[0]?.ResTarget?.val?.TypeCast)
    throw badType(type, 'it is not a single type name');
  return type;
}

const EXPRESSION_DEFAULTS = new Set(['now()', 'current_timestamp', 'current_date', 'gen_random_uuid()']);

/** DEFAULT clause body: a known expression as is, anything else a literal of the column's type. */
export function defaultSql(value: string, type: string): string {
  const lowered = value.trim().toLowerCase();
  if (EXPRESSION_DEFAULTS.has(lowered)) return lowered;
  if (value.includes('\u0000'))
    throw new AppError('VALIDATION_ERROR', 'A default value must not contain NUL characters.');
  return `${quoteLiteral(value)}::${type}`;
}

export async function columnSql(column: Omit<ColumnDefinition, 'isPrimaryKey'>): Promise<string> {
  const type = await sqlType(column.type);
  const parts = [quoteIdent(column.columnName), type];
  if (!column.isNullable) parts.push('not null');
  if (column.isUnique) parts.push('unique');
  if (column.defaultValue !== undefined && column.defaultValue !== null)
    parts.push(`default ${defaultSql(column.defaultValue, type)}`);
  return parts.join(' ');
}

/** A foreign key in either accepted shape as its (source → referenced) column pairs. */
export function foreignKeyPairs(fk: AnyForeignKey): { sourceColumn: string; referenceColumn: string }[] {
  return 'referenceColumns' in fk
    ? fk.referenceColumns
    : [{ sourceColumn: fk.columnName, referenceColumn: fk.referenceColumn }];
}

export function foreignKeySql(fk: AnyForeignKey): string {
  const pairs = foreignKeyPairs(fk);
  const named = 'constraintName' in fk && fk.constraintName ? `constraint ${quoteIdent(fk.constraintName)} ` : '';
  return (
    `${named}foreign key (${pairs.map((p) => quoteIdent(p.sourceColumn)).join(', ')}) references ${referenceRef(fk.referenceTable)} (${pairs.map((p) => quoteIdent(p.referenceColumn)).join(', ')})` +
    ` on delete ${fk.onDelete.toLowerCase()} on update ${fk.onUpdate.toLowerCase()}`
  );
}
