// WAL positions (LSNs) as PostgreSQL prints them ('16/B374D848') and as numbers to compare.

/** An LSN as a bigint: the high 32 bits before the slash, the low 32 after. */
export function parseLsn(text: string): bigint {
  const match = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text);
  if (!match) throw new Error(`Not an LSN: ${text}`);
  return (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`);
}

export function formatLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

export const maxLsn = (a: bigint, b: bigint): bigint => (a > b ? a : b);

export const minLsn = (a: bigint, b: bigint): bigint => (a < b ? a : b);
