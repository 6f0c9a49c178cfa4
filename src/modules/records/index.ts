// The records module's face: its plugin, its services and handlers (Supabase's /rest/v1 mounts
// them), and the schema cache (migrations refresh it after DDL).
export { acceptCsvBodies, acceptEmptyJsonBodies, pgrstFrameworkError } from './pgrst-http.js';
export { createRecordsApi, type RecordsApi, recordsPlugin } from './records.plugin.js';
export { recordsHandler, recordsParams } from './records.routes.js';
export { rpcHandler, rpcParams } from './rpc.routes.js';
export { createSchemaCache, type SchemaCache } from './schema-cache.js';
