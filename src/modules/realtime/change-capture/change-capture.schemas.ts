// The change capture status's wire contract (GET /api/realtime/change-capture, admin).
import { z } from 'zod';

export const changeCaptureStatusSchema = z.object({
  mode: z.enum(['triggers', 'logical']).describe('REALTIME_CHANGES of this server'),
  role: z.enum(['off', 'follower', 'leader']).describe('whether this server reads the slot (leader)'),
  slot: z.string().nullable(),
  slotActive: z.boolean().describe('a server is reading the slot now'),
  retainedWalBytes: z.number().describe('WAL the slot keeps on the primary (current position − restart_lsn)'),
  unconfirmedWalBytes: z.number().describe('WAL decoded but not yet confirmed as published'),
  walStatus: z.string().nullable().describe("pg_replication_slots.wal_status ('lost': changes were lost)"),
  walLevel: z.string(),
  maxSlotWalKeepSizeMb: z.number().describe('-1: unbounded (set it, so a stuck slot cannot fill the disk)'),
  published: z.number().describe('changes this server published as leader, since start'),
  skipped: z.number().describe('changes this server could not publish and skipped, since start'),
  warnings: z.array(z.string()),
});
