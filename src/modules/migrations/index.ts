// The migrations module's face: its plugin. It runs a migration's SQL through the database
// module's SQL engine (one way: database/ never imports migrations/).
export { migrationsPlugin } from './migrations.plugin.js';
