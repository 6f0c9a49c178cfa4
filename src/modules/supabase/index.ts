// The Supabase compatibility surface's face (issue 35): the `apikey` header the access control
// reads, and the /rest/v1 adapter's plugin.
export { isSupabasePath, supabaseApiKeyHeader } from './keys.js';
export { supabaseRestPlugin } from './rest/rest.plugin.js';
