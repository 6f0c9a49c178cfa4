// MCP usage: records each reported tool call with the server's clock; lists the newest.
import type { Deps } from '../../deps.js';
import { insertUsage, newestUsage } from './usage.repo.js';

export function createUsageService(deps: Pick<Deps, 'sql' | 'clock'>) {
  return {
    record: (toolName: string, success: boolean) => insertUsage(deps.sql, toolName, success, deps.clock.now()),
    newest: (success: boolean, limit: number) => newestUsage(deps.sql, success, limit),
  };
}

export type UsageService = ReturnType<typeof createUsageService>;
