// Supabase topics on Plinth's channels: `realtime:<topic>` on the wire, `<topic>` for policies
// (realtime.topic()), and a Plinth channel name per topic and privacy: a private topic's messages
// never reach a public join of the same name, nor can a public sender reach a private one.
import { SUPABASE_CHANNEL_PREFIX } from '../../realtime/index.js';

export const WIRE_PREFIX = 'realtime:';
export const MAX_TOPIC_BYTES = 200;

export const channelOf = (topic: string, isPrivate: boolean) =>
  `${SUPABASE_CHANNEL_PREFIX}${isPrivate ? 'private' : 'public'}:${topic}`;

/** The topic of a wire topic (`realtime:room` → `room`), or null when it is not one. */
export function topicOf(wireTopic: string): string | null {
  if (!wireTopic.startsWith(WIRE_PREFIX)) return null;
  const topic = wireTopic.slice(WIRE_PREFIX.length);
  return topic.length > 0 && Buffer.byteLength(topic) <= MAX_TOPIC_BYTES ? topic : null;
}

/** What a broadcast row stores: the event, the client's payload, and the sending join (for `self`). */
export interface StoredBroadcast {
  event: string;
  payload: unknown;
  sender?: string;
}
