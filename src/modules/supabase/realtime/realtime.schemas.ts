// The wire contract of Supabase Realtime's REST broadcast (POST /realtime/v1/api/broadcast), as
// realtime-js's httpSend and Supabase's docs send it.
import { z } from 'zod';

export const broadcastBodySchema = z.object({
  messages: z
    .array(
      z.object({
        topic: z.string().min(1).max(200),
        event: z.string().min(1).max(255),
        payload: z.unknown().optional(),
        private: z.boolean().optional(),
      }),
    )
    .min(1)
    .max(100),
});
export type BroadcastBody = z.infer<typeof broadcastBodySchema>;

export const topicEventParams = z.object({
  topic: z.string().min(1).max(200),
  event: z.string().min(1).max(255),
});
/** realtime-js adds apikey and vsn to the URL; those and other keys are ignored (persist too: not stored for replay). */
export const topicEventQuery = z.object({ private: z.enum(['true', 'false']).optional() });
