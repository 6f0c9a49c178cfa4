// The shapes of the admin SQL, dry-run and snippet answers the SQL and migrations screens read.

export interface RawSqlResult {
  rows: Record<string, unknown>[];
  rowCount: number;
  fields: { name: string; dataTypeID: number }[];
}

export interface RiskFactor {
  code: string;
  description: string;
  level: 'WARNING' | 'DANGER';
  statement?: string;
}

export interface DryRunResult {
  valid: boolean;
  statementCount: number;
  statements: string[];
  riskLevel: 'SAFE' | 'WARNING' | 'DANGER';
  riskFactors: RiskFactor[];
  error?: string;
}

export interface Snippet {
  id: string;
  name: string;
  sql: string;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

/** project_admin: row-level security applies; owner: the unrestricted route. */
export type RunMode = 'project_admin' | 'owner';

export const RAW_SQL_PATH: Record<RunMode, string> = {
  project_admin: '/api/database/advance/rawsql',
  owner: '/api/database/advance/rawsql/unrestricted',
};

export const jsonBody = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});
