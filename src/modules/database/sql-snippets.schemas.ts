// The wire contract of saved SQL snippets (/api/database/snippets): a name and the SQL, shared by
// the project's admins.
import { z } from 'zod';

const name = z.string().trim().min(1, 'must not be empty').max(200);
const sql = z.string().min(1, 'must not be empty').max(100_000);

export const snippetBody = z.strictObject({ name, sql });

export const snippetChange = z
  .strictObject({ name: name.optional(), sql: sql.optional() })
  .refine((change) => change.name !== undefined || change.sql !== undefined, {
    message: 'give a new name, new SQL or both',
  });

export const snippetParams = z.object({ id: z.uuid({ error: 'must be a snippet id (uuid)' }) });

export const snippetSchema = z.object({
  id: z.string(),
  name: z.string(),
  sql: z.string(),
  createdBy: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Snippet = z.infer<typeof snippetSchema>;

export const snippetList = z.object({ snippets: z.array(snippetSchema) });

export const snippetDeleted = z.object({ message: z.string() });
