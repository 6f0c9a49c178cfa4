// The watched-tables wire contract: a table name in, the table with its two channel names out.
import { z } from 'zod';

export const watchTableSchema = z.object({ table: z.string().min(1).max(255) });
export const tableParams = z.object({ table: z.string().min(1).max(255) });

export const watchedTableSchema = z.object({
  table: z.string(),
  keyColumns: z.array(z.string()),
  tableChannel: z.string(),
  rowChannel: z.string(),
  createdAt: z.string(),
});
export type WatchedTable = z.infer<typeof watchedTableSchema>;
