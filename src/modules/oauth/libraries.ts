// The OAuth libraries, loaded by the first flow that needs each, not when the server starts: a
// project that never signs anyone in through a provider never holds them in memory.
export const arctic = () => import('arctic');
export const openidClient = () => import('openid-client');
export const jose = () => import('jose');
