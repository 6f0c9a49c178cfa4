// WAL positions (LSNs, "16/B374D848") as numbers, and the id a captured change's messages derive
// from its transaction's commit LSN and its position in that transaction (at-least-once delivery
// with ids to deduplicate: the same change decoded twice gets the same ids).

export function parseLsn(text: string): bigint {
  const [high, low] = text.split('/');
  if (high === undefined || low === undefined || !/^[0-9a-f]{1,8}$/i.test(high) || !/^[0-9a-f]{1,8}$/i.test(low)) {
    throw new Error(`not an LSN: ${text}`);
  }
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}

export function formatLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

/**
 * The first 28 hex digits of the ids of a change's messages (realtime.publish_row_change appends
 * the channel's 4): the commit LSN (16) and the change's 1-based position in its transaction (12).
 */
export function changeIdBase(commitLsn: bigint, position: number): string {
  return commitLsn.toString(16).padStart(16, '0') + position.toString(16).padStart(12, '0');
}
