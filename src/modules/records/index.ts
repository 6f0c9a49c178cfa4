// The records module's face: its plugin and the schema cache (migrations refresh it after DDL).
export { recordsPlugin } from './records.plugin.js';
export { createSchemaCache, type SchemaCache } from './schema-cache.js';
