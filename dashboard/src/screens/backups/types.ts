// The shapes of the backups API the screen reads (GET /api/database/backups).

export interface Backup {
  id: string;
  name: string | null;
  triggerSource: 'manual' | 'scheduled';
  status: 'running' | 'completed' | 'failed';
  sizeBytes: number | null;
  errorMessage: string | null;
  createdAt: string;
  completedAt: string | null;
}

export const backupsKey = ['backups'] as const;

/** What the admin calls a backup (its name, else its id), and types to restore it. */
export const labelOf = (b: Backup) => b.name ?? b.id;
