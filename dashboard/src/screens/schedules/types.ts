// The shapes of the schedules API the screen reads (GET /api/schedules, /{id}/logs, /preview).

export interface Schedule {
  id: string;
  name: string;
  cronSchedule: string;
  timeZone: string;
  functionUrl: string;
  functionSlug: string | null;
  httpMethod: string;
  headers: Record<string, string> | null;
  isActive: boolean;
  lastExecutedAt: string | null;
  nextRun: string | null;
}

export interface ScheduleRun {
  id: string;
  executedAt: string;
  status: 'running' | 'success' | 'failed' | 'timed_out';
  statusCode: number | null;
  durationMs: number | null;
  message: string | null;
  excerpt: string | null;
  attempt: number;
}

export interface RunPage {
  logs: ScheduleRun[];
  totalCount: number;
}

export const schedulesKey = ['schedules'] as const;
export const runsKey = (id: string) => ['schedules', id, 'runs'] as const;
