// The route patterns the web console is served on: `/` (its redirect), /dashboard and its files.
// The logs leave their requests out on request (they flood a new project's request logs).
export const CONSOLE_ROUTES = ['/', '/dashboard', '/dashboard/*'] as const;
