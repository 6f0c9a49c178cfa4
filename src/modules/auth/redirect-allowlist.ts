// Which `redirectTo` URLs the auth flows may send a browser to, by the spec's allowedRedirectUrls
// rules: exact entries match exactly (scheme, host, port, path); a wildcard may stand only for
// the subdomains in the host (`https://*.example.com/cb`); deep links (`myapp://cb`,
// `com.example.app:/cb`) only when listed. An empty list allows everything but dangerous schemes.

const DANGEROUS_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'vbscript:', 'blob:', 'about:']);
const WEB_SCHEMES = new Set(['http:', 'https:']);
const SCHEME = /^([a-z][a-z0-9+.-]*):/i;

interface WebTarget {
  kind: 'web';
  scheme: string;
  host: string;
  port: string;
  path: string;
}
interface DeepLink {
  kind: 'deep';
  value: string;
}
type Target = WebTarget | DeepLink;

// Paths compare without a trailing slash, so `https://a.com/cb/` and `https://a.com/cb` agree.
const normalisePath = (path: string) => path.replace(/\/+$/, '') || '/';

/** A URL in comparable parts; undefined when it is not a URL a browser may be sent to. */
function parseTarget(raw: string): Target | undefined {
  const scheme = SCHEME.exec(raw)?.[1]?.toLowerCase();
  if (!scheme || DANGEROUS_SCHEMES.has(`${scheme}:`)) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (WEB_SCHEMES.has(url.protocol)) {
    if (!url.hostname || url.username || url.password) return undefined;
    return { kind: 'web', scheme: url.protocol, host: url.hostname, port: url.port, path: normalisePath(url.pathname) };
  }
  // A deep link compares as written, less its query and fragment, with the scheme lowercased.
  const withoutQuery = raw.slice(scheme.length).split(/[?#]/)[0] ?? '';
  return { kind: 'deep', value: `${scheme}${normalisePath(withoutQuery)}` };
}

interface WebPattern {
  kind: 'web';
  scheme: string;
  /** The host, or for a wildcard entry the parent domain whose subdomains match. */
  host: string;
  wildcard: boolean;
  port: string;
  path: string;
}
type Pattern = WebPattern | DeepLink;

/** An allowlist entry in comparable parts; undefined when the entry is not valid. */
export function parsePattern(entry: string): Pattern | undefined {
  const wildcard = /^(https?:\/\/)\*\.(.*)$/i.exec(entry);
  if (wildcard) {
    const target = parseTarget(`${wildcard[1]}${wildcard[2]}`);
    if (target?.kind !== 'web' || target.host.includes('*') || !target.host.includes('.')) return undefined;
    return { ...target, wildcard: true };
  }
  if (entry.includes('*')) return undefined;
  const target = parseTarget(entry);
  if (!target) return undefined;
  if (target.kind === 'deep') {
    // `<scheme>://<path>` or `<reverse-domain>:/<path>`: a path is required after the scheme.
    return /^[a-z][a-z0-9+.-]*:\/\/?[^/]/i.test(entry) ? target : undefined;
  }
  return { ...target, wildcard: false };
}

function matches(pattern: Pattern, target: Target): boolean {
  if (pattern.kind === 'deep' || target.kind === 'deep') {
    return pattern.kind === 'deep' && target.kind === 'deep' && pattern.value === target.value;
  }
  const hostMatches = pattern.wildcard
    ? target.host.endsWith(`.${pattern.host}`) && target.host.length > pattern.host.length + 1
    : target.host === pattern.host;
  return (
    hostMatches && pattern.scheme === target.scheme && pattern.port === target.port && pattern.path === target.path
  );
}

/** Whether the auth flows may redirect a browser to `redirectTo` under this allowlist. */
export function isRedirectAllowed(redirectTo: string, allowlist: readonly string[]): boolean {
  const target = parseTarget(redirectTo);
  if (!target) return false;
  if (allowlist.length === 0) return true;
  return allowlist.some((entry) => {
    const pattern = parsePattern(entry);
    return pattern !== undefined && matches(pattern, target);
  });
}
