// What anon-key sockets see of presence: a signed-in member's user id is replaced by a pseudonym
// (HMAC of channel and user id under a random key of this server: not reversible, different per
// channel; consistent for every socket of this server, which gets its snapshot and events from
// it alone), unless the channel opted in (realtime.channels.presence_user_ids). Anonymous
// members' ids are socket ids and stay.
import { createHmac, randomBytes } from 'node:crypto';
import type { PresenceMember } from './presence.service.js';

export type MemberMask = (channel: string, member: PresenceMember) => PresenceMember;

export function createMemberMask(): MemberMask {
  const key = randomBytes(32);
  return (channel, member) =>
    member.type === 'user'
      ? {
          ...member,
          presenceId: createHmac('sha256', key)
            .update(`${channel}\u0001${member.presenceId}`)
            .digest('hex')
            .slice(0, 32),
        }
      : member;
}
