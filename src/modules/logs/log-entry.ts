// What one log entry holds, as the writer buffers it and the repo stores it.

export const LOG_SOURCES = ['requests', 'functions', 'audit', 'errors'] as const;
export type LogSource = (typeof LOG_SOURCES)[number];

export interface LogEntry {
  id: string;
  ts: Date;
  source: LogSource;
  level: 'info' | 'warn' | 'error';
  method: string | null;
  route: string | null;
  status: number | null;
  durationMs: number | null;
  principal: string | null;
  userId: string | null;
  ip: string | null;
  requestId: string | null;
  slug: string | null;
  message: string;
  details: Record<string, unknown> | null;
}
