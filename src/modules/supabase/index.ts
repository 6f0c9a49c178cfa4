// The Supabase compatibility surface's face (issue 35): the `apikey` header the access control
// reads, and the adapters' plugins (/auth/v1, /rest/v1, /realtime/v1, /storage/v1).
export { isSupabasePath, supabaseApiKeyHeader, supabaseExposedHeaders } from './keys.js';
export { supabaseRestPlugin } from './rest/rest.plugin.js';
export { supabaseRealtimePlugin } from './realtime/realtime.plugin.js';
export { supabaseStoragePlugin } from './storage/storage.plugin.js';
export { supabaseAuthPlugin } from './auth/auth.plugin.js';
