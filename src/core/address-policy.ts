// Which network addresses Plinth's outbound calls may reach (functions, webhooks): none on
// loopback, private, link-local, shared (CGNAT), documentation, multicast or reserved ranges,
// except the origins an operator allows. One policy for every caller, so they cannot drift apart.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/** IPv4 ranges no outbound call may reach (RFC 6890 special-purpose, multicast, reserved). */
export const BLOCKED_IPV4_RANGES = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
] as const;

/** IPv6 ranges likewise; IPv4-mapped addresses (::ffff:0:0/96) are refused whatever they map to. */
export const BLOCKED_IPV6_RANGES = [
  '::/128',
  '::1/128',
  '::ffff:0:0/96',
  '100::/64',
  '2001::/23',
  '2001:db8::/32',
  '2002::/16',
  'fc00::/7',
  'fe80::/10',
  'fec0::/10',
  'ff00::/8',
] as const;

const blocked = new BlockList();
for (const range of BLOCKED_IPV4_RANGES) {
  const [net, prefix] = range.split('/');
  blocked.addSubnet(net!, Number(prefix), 'ipv4');
}
for (const range of BLOCKED_IPV6_RANGES) {
  const [net, prefix] = range.split('/');
  blocked.addSubnet(net!, Number(prefix), 'ipv6');
}

/** True when an IP address (v4 or v6, brackets allowed) lies in a refused range. */
export function isBlockedAddress(address: string): boolean {
  const ip = address.replace(/^\[|\]$/g, '');
  const family = isIP(ip);
  if (family === 0) return true; // not an address: never trust it as a destination
  return blocked.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * The list for Deno's --deny-net. Deno matches IPv4 ranges (also against what a name resolves
 * to, and it reads IPv4-mapped IPv6 as IPv4) but only single IPv6 addresses: the IPv6 loopback
 * and unspecified addresses are listed; other private IPv6 ranges are not expressible there.
 */
export function denoDeniedNet(): string {
  return [...BLOCKED_IPV4_RANGES, '[::1]', '[::]'].join(',');
}

/**
 * Parses an allow-list of origins ("http://127.0.0.1:9000,https://intranet.example"): each
 * entry normalised to its origin. Throws on an entry that is not an http(s) origin.
 */
export function parseAllowedOrigins(list: string | undefined): string[] {
  if (!list?.trim()) return [];
  return list.split(',').map((entry) => {
    const url = new URL(entry.trim());
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.pathname !== '/' || url.search || url.hash) {
      throw new Error(`${entry.trim()} is not an http(s) origin (scheme://host[:port])`);
    }
    return url.origin;
  });
}

export type OutboundRefusal = 'scheme' | 'address' | 'unresolvable';

export class OutboundRefused extends Error {
  override name = 'OutboundRefused';
  constructor(
    readonly reason: OutboundRefusal,
    message: string,
  ) {
    super(message);
  }
}

/** Refuses what is not http(s) at once (before any lookup): for checking a URL an admin saves. */
export function assertHttpUrl(raw: string): URL {
  const url = new URL(raw);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutboundRefused('scheme', `Only http and https URLs may be called (got ${url.protocol}).`);
  }
  return url;
}

/** Refuses a URL whose host is an IP literal in a refused range, unless its origin is allowed. */
export function assertPublicLiteral(url: URL, allowedOrigins: readonly string[]): void {
  if (allowedOrigins.includes(url.origin)) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 && isBlockedAddress(host)) {
    throw new OutboundRefused('address', `${url.hostname} is a private or reserved address.`);
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http.request that resolves the name and refuses the connection when any address
 * it resolves to is refused: the socket then connects to exactly the address that was checked, so
 * a name that changes its answer between check and connect (DNS rebinding) gains nothing.
 */
export function policyLookup(allowedOrigin: boolean) {
  return (
    hostname: string,
    options: { all?: boolean; family?: number | 'IPv4' | 'IPv6' },
    callback: LookupCallback,
  ) => {
    dnsLookup(hostname, { all: true, family: options.family ?? 0 }, (err, addresses) => {
      if (err) return callback(err, []);
      const refused = addresses.find((a) => isBlockedAddress(a.address));
      if (refused && !allowedOrigin) {
        const error: NodeJS.ErrnoException = new OutboundRefused(
          'address',
          `${hostname} resolves to ${refused.address}, a private or reserved address.`,
        );
        error.code = 'EADDRNOTALLOWED';
        return callback(error, []);
      }
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
