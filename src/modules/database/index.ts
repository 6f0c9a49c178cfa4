// The database administration module's face: its plugin, the catalog reads and schemas the
// metadata module builds its overview and table descriptions from, and the SQL engine the
// migrations module runs a migration's statements with.
export { databasePlugin } from './database.plugin.js';
export { databaseSummary, describeTable } from './database-catalog.service.js';
export { indexInfo, policyInfo, triggerInfo } from './database-objects.schemas.js';
export { columnInfo, tableParams } from './table-admin.schemas.js';
// The admin SQL guard, which migrations and a backup's restore (the SQL of an unsigned archive) apply.
export { findViolations, guardedStatements, splitStatements } from './sql-guard.js';
export type { ParsedStatement } from './sql-statement.js';
export { type Conn, inAdminTransaction, runStatement } from './admin-transaction.js';
export { announceSchemaChange } from './schema-version.repo.js';
