// What the Tables screen reads and writes: a table's schema, its catalog objects, the admin record
// editor's path, and admin SQL (policies, row-level security), with identifiers quoted.
import { useQuery } from '@tanstack/react-query';
import type { ApiClient } from '../../api/client';
import { useApi } from '../../api/context';

export interface ForeignKeyInfo {
  referenceTable: string;
  referenceColumn: string;
  onDelete: string;
  onUpdate: string;
}

export interface ColumnInfo {
  columnName: string;
  type: string;
  isNullable: boolean;
  isPrimaryKey: boolean;
  isUnique: boolean;
  defaultValue: string | null;
  enumValues: string[] | null;
  foreignKey: ForeignKeyInfo | null;
}

export interface TableSchema {
  tableName: string;
  rlsEnabled: boolean;
  columns: ColumnInfo[];
}

export interface IndexInfo {
  tableName: string;
  indexName: string;
  indexDef: string;
  isUnique: boolean;
  isPrimary: boolean;
}

export interface PolicyInfo {
  tableName: string;
  policyName: string;
  command: string;
  permissive: string;
  roles: string[];
  using: string | null;
  withCheck: string | null;
}

export interface TriggerInfo {
  tableName: string;
  triggerName: string;
  functionName: string;
  enabled: boolean;
  definition: string;
}

export type Row = Record<string, unknown>;

/** The admin record editor (audited writes; PostgREST grammar in the query). */
export const recordsPath = (table: string) => `/api/database/admin/tables/${encodeURIComponent(table)}/records`;

export const schemaKey = (table: string) => ['table-schema', table];

export function useTableSchema(table: string, enabled = true) {
  const api = useApi();
  return useQuery({
    queryKey: schemaKey(table),
    enabled,
    queryFn: () => api.json<TableSchema>(`/api/database/tables/${encodeURIComponent(table)}/schema`),
  });
}

/** One kind of catalog object of the public schema, narrowed to one table. */
export function useTableObjects<T extends { tableName: string }>(
  kind: 'indexes' | 'policies' | 'triggers',
  table: string,
) {
  const api = useApi();
  return useQuery({
    queryKey: ['database-objects', kind],
    queryFn: () => api.json<Record<string, T[]>>(`/api/database/${kind}`),
    select: (answer) => (answer[kind] ?? []).filter((item) => item.tableName === table),
  });
}

/** "name" as a SQL identifier, whatever it contains. */
export const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Runs one admin SQL statement as project_admin (the raw SQL route; audited). */
export const runAdminSql = (api: ApiClient, query: string) =>
  api.json<{ rows: Row[] }>('/api/database/advance/rawsql', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });

export const jsonInit = (method: string, body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});
