// Headers that belong to one connection (RFC 9110 7.6.1), plus Host and Expect: a proxy or relay
// never forwards them, in either direction.
export const HOP_BY_HOP: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'expect',
]);
