// The wire contract of database backups (reference platform §7: /api/database/backups), with
// Plinth's addition of a download route.
import { z } from 'zod';

const backupName = z
  .string()
  .trim()
  .min(1, { error: 'Backup name cannot be empty' })
  .max(64, { error: 'Backup name must be less than 64 characters' });

export const createBackupBody = z.strictObject({ name: backupName.optional() }).nullish();
export const renameBackupBody = z.strictObject({ name: backupName.nullable() });
export const importBackupQuery = z.strictObject({
  name: backupName.optional(),
  /** "true" stores an archive without this project's valid signature; its restore is then guarded. */
  allowUnsigned: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
});
export const backupIdParams = z.object({ id: z.uuid({ error: 'Invalid backup ID' }) });

export const backupSchema = z.object({
  id: z.string(),
  name: z.string().nullable(),
  triggerSource: z.enum(['manual', 'scheduled']),
  status: z.enum(['running', 'completed', 'failed']),
  sizeBytes: z.number().nullable(),
  errorMessage: z.string().nullable(),
  createdAt: z.string(),
  completedAt: z.string().nullable(),
  createdBy: z.string().nullable(),
  expiresAt: z.string().nullable(),
  /** When the archive was uploaded to this server (POST /api/database/backups/import); null for its own. */
  importedAt: z.string().nullable(),
  /**
   * The archive carries this project's signature (made here, or imported and verified). An unsigned
   * one's restore runs only the SQL admin SQL would run, and copies only into tables it created.
   */
  signed: z.boolean(),
});
export type Backup = z.infer<typeof backupSchema>;

export const backupListSchema = z.object({ backups: z.array(backupSchema) });
export const messageSchema = z.object({ message: z.string() });

/** The archive's bytes (gzip; format in src/modules/backups/archive.ts). */
export const archiveBytes = {
  description: 'The backup archive (application/gzip)',
  content: { 'application/gzip': { schema: z.string().meta({ format: 'binary' }) } },
};

export const backupConfigSchema = z.object({
  backup: z.object({
    enabled: z.boolean(),
    cronSchedule: z.string(),
    retentionDays: z.number().int().nullable(),
    nextBackupAt: z.string().nullable(),
  }),
});
export const backupConfigUpdateSchema = z.strictObject({
  backup: z
    .strictObject({
      enabled: z.boolean().optional(),
      cronSchedule: z.string().trim().min(1).max(64).optional(),
      retentionDays: z.number().int().min(1).max(3650).nullable().optional(),
    })
    .refine((b) => Object.keys(b).length > 0, { error: 'Give at least one of enabled, cronSchedule, retentionDays' }),
});
export type BackupConfigUpdate = z.infer<typeof backupConfigUpdateSchema>;
