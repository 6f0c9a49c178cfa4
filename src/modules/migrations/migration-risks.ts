// What a migration's statements risk, for the dry run: data loss (DROP, TRUNCATE, unfiltered
// DELETE/UPDATE) and changes that break existing clients (dropped or renamed columns and tables,
// changed column types).
import type { ParsedStatement } from '../database/index.js';
import type { RiskFactor } from './migrations.schemas.js';

type Body = Record<string, unknown>;

function risksOf(s: ParsedStatement): RiskFactor[] {
  const body = (s.node[s.kind] ?? {}) as Body;
  const danger = (description: string): RiskFactor => ({
    code: 'DESTRUCTIVE_DATA_LOSS',
    description,
    level: 'DANGER',
    statement: s.text,
  });
  const breaking = (description: string): RiskFactor => ({
    code: 'SCHEMA_BREAKING_CHANGE',
    description,
    level: 'WARNING',
    statement: s.text,
  });
  switch (s.kind) {
    case 'DropStmt':
      return [
        danger(
          `Drops ${String(body.removeType ?? 'an object')
            .replace(/^OBJECT_/, '')
            .toLowerCase()}s and everything in them.`,
        ),
      ];
    case 'TruncateStmt':
      return [danger('Deletes every row of the table.')];
    case 'DeleteStmt':
      return body.whereClause ? [] : [danger('Deletes every row of the table (no WHERE clause).')];
    case 'UpdateStmt':
      return body.whereClause ? [] : [breaking('Updates every row of the table (no WHERE clause).')];
    case 'RenameStmt':
      return [breaking('Renames an object that clients may refer to by name.')];
    case 'AlterTableStmt': {
      const commands = (body.cmds as { AlterTableCmd?: { subtype?: string } }[] | undefined) ?? [];
      return commands.flatMap(({ AlterTableCmd: cmd }): RiskFactor[] => {
        if (cmd?.subtype === 'AT_DropColumn') return [danger('Drops a column and its data.')];
        if (cmd?.subtype === 'AT_AlterColumnType') return [breaking('Changes a column type.')];
        if (cmd?.subtype === 'AT_SetNotNull')
          return [breaking('Makes a column NOT NULL; inserts without it will fail.')];
        return [];
      });
    }
    default:
      return [];
  }
}

export function assessRisks(statements: ParsedStatement[]): RiskFactor[] {
  return statements.flatMap(risksOf);
}

export function riskLevel(factors: RiskFactor[]): 'SAFE' | 'WARNING' | 'DANGER' {
  if (factors.some((f) => f.level === 'DANGER')) return 'DANGER';
  return factors.length > 0 ? 'WARNING' : 'SAFE';
}
