// The wire contract of table administration (api-contract.md §3.3): creating a table from a column
// list, reading and altering its schema, dropping it.
import { z } from 'zod';

/** Plain SQL identifiers only (no quoting games); PostgreSQL would truncate names past 63 bytes. */
export const identifier = z
  .string()
  .min(1)
  .max(63, 'must be at most 63 characters (PostgreSQL truncates longer names)')
  .regex(
    /^[A-Za-z_][A-Za-z0-9_]*$/,
    'must start with a letter or underscore and use letters, digits and underscores only',
  );

/** A table another table may reference: `name` (in public) or `schema.name`. */
const referencedTable = z
  .string()
  .min(1)
  .max(127)
  .regex(
    /^([A-Za-z_][A-Za-z0-9_]{0,62}\.)?[A-Za-z_][A-Za-z0-9_]{0,62}$/,
    'must be a table name, optionally with its schema (auth.users)',
  );

/** The friendly types and the PostgreSQL types they stand for; anything else is a raw SQL type. */
export const FRIENDLY_TYPES = {
  string: 'text',
  integer: 'integer',
  float: 'double precision',
  boolean: 'boolean',
  datetime: 'timestamp with time zone',
  date: 'date',
  uuid: 'uuid',
  json: 'jsonb',
} as const;

const columnType = z.string().trim().min(1).max(100);
const defaultValue = z.string().max(1000);
const action = z.enum(['CASCADE', 'SET NULL', 'SET DEFAULT', 'RESTRICT', 'NO ACTION']);

export const columnDefinition = z.strictObject({
  columnName: identifier,
  type: columnType,
  defaultValue: defaultValue.nullable().optional(),
  isPrimaryKey: z.boolean().optional(),
  isNullable: z.boolean().default(true),
  isUnique: z.boolean().default(false),
});
export type ColumnDefinition = z.infer<typeof columnDefinition>;

export const foreignKeyDefinition = z.strictObject({
  columnName: identifier,
  referenceTable: referencedTable,
  referenceColumn: identifier,
  onDelete: action.default('NO ACTION'),
  onUpdate: action.default('NO ACTION'),
});
export type ForeignKeyDefinition = z.infer<typeof foreignKeyDefinition>;

/**
 * The reference platform's shape (its shared-schemas foreignKeySchema): one constraint with its
 * (source → referenced) column pairs, in order; a composite key is one entry. `constraintName`
 * names it (PostgreSQL's default name otherwise).
 */
export const foreignKeyConstraint = z.strictObject({
  constraintName: identifier.optional(),
  referenceTable: referencedTable,
  referenceColumns: z
    .array(z.strictObject({ sourceColumn: identifier, referenceColumn: identifier }))
    .min(1, 'give at least one {sourceColumn, referenceColumn} pair')
    .max(32, 'a key has at most 32 columns'),
  onDelete: action.default('NO ACTION'),
  onUpdate: action.default('NO ACTION'),
});
export type ForeignKeyConstraint = z.infer<typeof foreignKeyConstraint>;

type UnionIssue = { input?: unknown; errors?: { path: PropertyKey[]; message: string }[][] };

/** A failed entry's problems as the shape it was meant to be (the one with referenceColumns or not). */
function foreignKeyProblems(issue: UnionIssue): string | undefined {
  const input = issue.input;
  const meant = input !== null && typeof input === 'object' && 'referenceColumns' in input ? 1 : 0;
  const problems = (issue.errors?.[meant] ?? []).map((i) => `${i.path.map(String).join('.') || 'entry'}: ${i.message}`);
  return problems.length === 0 ? undefined : problems.join('; ');
}

/** Either shape: Plinth's {columnName, referenceTable, referenceColumn} or the reference's. */
export const anyForeignKey = z.union([foreignKeyDefinition, foreignKeyConstraint], {
  error: (issue) => foreignKeyProblems(issue as UnionIssue),
});
export type AnyForeignKey = z.infer<typeof anyForeignKey>;

export const createTableBody = z.strictObject({
  tableName: identifier,
  columns: z.array(columnDefinition).max(1600),
  foreignKeys: z.array(anyForeignKey).max(100).optional(),
  rlsEnabled: z.boolean().default(true),
});
export type CreateTable = z.infer<typeof createTableBody>;

export const columnUpdate = z.strictObject({
  columnName: identifier,
  newColumnName: identifier.optional(),
  type: columnType.optional(),
  /** null drops the default. */
  defaultValue: defaultValue.nullable().optional(),
  isNullable: z.boolean().optional(),
});
export type ColumnUpdate = z.infer<typeof columnUpdate>;

export const alterTableBody = z
  .strictObject({
    addColumns: z
      .array(columnDefinition.omit({ isPrimaryKey: true }))
      .max(1600)
      .optional(),
    dropColumns: z.array(identifier).max(1600).optional(),
    updateColumns: z.array(columnUpdate).max(1600).optional(),
    addForeignKeys: z.array(anyForeignKey).max(100).optional(),
    /** Columns whose foreign keys are dropped, or (as the reference) foreign-key constraint names. */
    dropForeignKeys: z.array(identifier).max(100).optional(),
    renameTable: z.strictObject({ newTableName: identifier }).optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined && (!Array.isArray(v) || v.length > 0)), {
    message:
      'name at least one change: addColumns, dropColumns, updateColumns, addForeignKeys, dropForeignKeys or renameTable',
  });
export type AlterTable = z.infer<typeof alterTableBody>;

export const tableParams = z.strictObject({ tableName: identifier });

const foreignKeyInfo = z.object({
  referenceTable: z.string(),
  referenceColumn: z.string(),
  onDelete: z.string(),
  onUpdate: z.string(),
});

export const columnInfo = z.object({
  columnName: z.string(),
  type: z.string(),
  isNullable: z.boolean(),
  isPrimaryKey: z.boolean(),
  isUnique: z.boolean(),
  defaultValue: z.string().nullable(),
  /** The labels of an enum column's type, in order (null for other types). */
  enumValues: z.array(z.string()).nullable(),
  foreignKey: foreignKeyInfo.nullable(),
});
export type ColumnInfo = z.infer<typeof columnInfo>;

export const tableSchema = z.object({
  tableName: z.string(),
  rlsEnabled: z.boolean(),
  columns: z.array(columnInfo),
});
export type TableSchema = z.infer<typeof tableSchema>;

export const tableCreated = z.object({
  schemaName: z.string(),
  tableName: z.string(),
  columns: z.array(columnInfo),
  message: z.string(),
  autoFields: z.array(z.string()),
  nextActions: z.string(),
});

export const tableAltered = z.object({ message: z.string(), tableName: z.string(), operations: z.array(z.string()) });
export const tableDeleted = z.object({ message: z.string(), tableName: z.string() });
