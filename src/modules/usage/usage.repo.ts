// SQL of system.mcp_usage: insert one call, read the newest calls of one outcome.
import type { Queryable } from '../../core/db.js';
import type { UsageRecord } from './usage.schemas.js';

export async function insertUsage(db: Queryable, toolName: string, success: boolean, at: Date): Promise<void> {
  await db`insert into system.mcp_usage (tool_name, success, created_at) values (${toolName}, ${success}, ${at})`;
}

export async function newestUsage(db: Queryable, success: boolean, limit: number): Promise<UsageRecord[]> {
  const rows = await db<{ tool_name: string; success: boolean; created_at: Date }[]>`
    select tool_name, success, created_at from system.mcp_usage
    where success = ${success} order by created_at desc, seq desc limit ${limit}`;
  return rows.map((r) => ({ ...r, created_at: r.created_at.toISOString() }));
}
