// The wire contract of the admin SQL routes: the query with its parameters, and the rows it answers.
import { z } from 'zod';

export const rawSqlBody = z.strictObject({
  query: z.string().trim().min(1, 'must not be empty'),
  params: z.array(z.unknown()).max(1000).optional(),
});

export const rawSqlResult = z.object({
  rows: z.array(z.record(z.string(), z.unknown())),
  rowCount: z.number().int(),
  fields: z.array(z.object({ name: z.string(), dataTypeID: z.number().int() })),
});
