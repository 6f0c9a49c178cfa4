// Calls to URLs an admin configures (channel webhooks, schedule targets) under the address policy
// (address-policy.ts): checked when saved (a clear 400) and again when called, where the name is
// resolved by the policy's lookup so the connection goes to exactly the address that was checked.
import { Agent } from 'undici';
import { assertHttpUrl, assertPublicLiteral, OutboundRefused, policyLookup } from '../core/address-policy.js';
import type { Config } from '../config.js';
import { AppError } from '../core/errors.js';

/**
 * The origins that may be private: Plinth's own API (API_BASE_URL) and OUTBOUND_ALLOWED_ORIGINS.
 * The same list the functions' relay forwards to.
 */
export const allowedOutboundOrigins = (config: Pick<Config, 'apiBaseUrl' | 'outboundAllowedOrigins'>): string[] => [
  ...new Set([new URL(config.apiBaseUrl).origin, ...config.outboundAllowedOrigins]),
];

/** Not allow-listed: every name's addresses are checked before connecting. */
const guarded = new Agent({ connect: { lookup: policyLookup(false) } });
/** Allow-listed origins (OUTBOUND_ALLOWED_ORIGINS) connect wherever their name points. */
const trusted = new Agent();

/** The policy's verdict on a URL, before any lookup: scheme, userinfo and literal addresses. */
function checkUrl(raw: string, allowedOrigins: readonly string[]): URL {
  let url: URL;
  try {
    url = assertHttpUrl(raw);
  } catch (err) {
    if (err instanceof OutboundRefused) throw err;
    throw new OutboundRefused('scheme', 'Not a URL.');
  }
  // Credentials in a URL end up in logs and delivery records; a receiver takes them in a header.
  if (url.username || url.password) throw new OutboundRefused('scheme', 'URLs may not contain user:password@.');
  assertPublicLiteral(url, allowedOrigins);
  return url;
}

/**
 * For a URL an admin saves: a 400 naming the field when the policy refuses it. `field` is the
 * body field as the client sent it (e.g. "webhookUrls[0]").
 */
export function assertOutboundUrl(raw: string, field: string, allowedOrigins: readonly string[]): void {
  try {
    checkUrl(raw, allowedOrigins);
  } catch (err) {
    if (!(err instanceof OutboundRefused)) throw err;
    throw new AppError('VALIDATION_ERROR', `${field}: ${err.message}`, {
      details: [{ path: field, message: err.message }],
      nextActions:
        err.reason === 'scheme'
          ? 'Give an http(s) URL without user:password@ (send credentials in a header instead).'
          : 'Give a public http(s) URL, or have the operator add its origin (scheme://host:port) to OUTBOUND_ALLOWED_ORIGINS.',
    });
  }
}

/**
 * A fetch() under the policy. It throws OutboundRefused (nothing sent, no connection made) when
 * the URL or an address its name resolves to is refused; other failures are fetch's own.
 */
export function outboundFetcher(allowedOrigins: readonly string[]) {
  return async (raw: string, init: RequestInit): Promise<Response> => {
    const url = checkUrl(raw, allowedOrigins);
    const dispatcher = allowedOrigins.includes(url.origin) ? trusted : guarded;
    try {
      // Node's fetch takes an undici dispatcher (not in the DOM's RequestInit type).
      return await fetch(url, { ...init, dispatcher } as RequestInit);
    } catch (err) {
      // undici wraps a refused lookup in "fetch failed": answer the policy's own reason.
      const cause = (err as { cause?: unknown }).cause;
      if (cause instanceof OutboundRefused) throw cause;
      throw err;
    }
  };
}
