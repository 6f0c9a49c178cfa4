// The allowedRedirectUrls rules of the spec, as a table of cases.
import { describe, expect, it } from 'vitest';
import { isRedirectAllowed, parsePattern } from '../../src/modules/auth/redirect-allowlist.js';

const list = [
  'https://app.example.com/auth/callback',
  'http://localhost:3000/cb',
  'https://*.preview.example.com/cb',
  'myapp://auth/callback',
  'com.example.app:/oauth',
];

describe('isRedirectAllowed', () => {
  it.each([
    // exact entries
    ['https://app.example.com/auth/callback', list, true],
    ['https://app.example.com/auth/callback/', list, true],
    ['https://app.example.com/auth/callback?next=%2Fhome', list, true],
    ['https://app.example.com/auth/callback#frag', list, true],
    ['https://APP.example.com/auth/callback', list, true],
    ['https://app.example.com:443/auth/callback', list, true],
    ['https://app.example.com/auth/callback/extra', list, false],
    ['https://app.example.com/auth', list, false],
    ['https://app.example.com/Auth/Callback', list, false],
    ['http://app.example.com/auth/callback', list, false],
    ['https://app.example.com:8443/auth/callback', list, false],
    ['https://evil.com/auth/callback', list, false],
    ['https://app.example.com.evil.com/auth/callback', list, false],
    ['https://user:pass@app.example.com/auth/callback', list, false],
    ['http://localhost:3000/cb', list, true],
    ['http://localhost:3001/cb', list, false],
    ['http://localhost/cb', list, false],
    // host wildcards
    ['https://pr-12.preview.example.com/cb', list, true],
    ['https://a.b.preview.example.com/cb', list, true],
    ['https://preview.example.com/cb', list, false],
    ['https://pr-12.preview.example.com/other', list, false],
    ['http://pr-12.preview.example.com/cb', list, false],
    ['https://pr-12.preview.example.com.evil.com/cb', list, false],
    ['https://evilpreview.example.com/cb', list, false],
    // deep links, only when listed
    ['myapp://auth/callback', list, true],
    ['MYAPP://auth/callback', list, true],
    ['myapp://auth/callback?code=1', list, true],
    ['myapp://auth/other', list, false],
    ['otherapp://auth/callback', list, false],
    ['com.example.app:/oauth', list, true],
    ['com.example.app:/oauth2', list, false],
    ['com.evil.app:/oauth', list, false],
    // dangerous schemes and garbage, never
    ['javascript:alert(1)', list, false],
    ['javascript:alert(1)', [], false],
    ['JavaScript:alert(1)', [], false],
    ['data:text/html,<script>alert(1)</script>', [], false],
    ['file:///etc/passwd', [], false],
    ['vbscript:msgbox(1)', [], false],
    ['not a url', [], false],
    ['/relative/path', [], false],
    ['', [], false],
    // an empty list allows every other URL
    ['https://anything.example.org/x', [], true],
    ['myapp://cb', [], true],
    // entries that are not valid patterns match nothing
    ['https://app.example.com/a', ['https://app.example.com/*'], false],
    ['https://x.example.com/cb', ['https://*.com/cb'], false],
    ['https://x.example.com/cb', ['*://x.example.com/cb'], false],
    ['javascript:alert(1)', ['javascript:alert(1)'], false],
  ])('%s under %j → %s', (target, allowlist, expected) => {
    expect(isRedirectAllowed(target, allowlist)).toBe(expected);
  });
});

describe('parsePattern (validating allowlist entries)', () => {
  it.each([
    ['https://app.example.com/cb', true],
    ['http://localhost:3000', true],
    ['https://*.example.com/cb', true],
    ['myapp://callback', true],
    ['com.example.app:/oauth', true],
    ['https://app.*.com/cb', false],
    ['https://*/cb', false],
    ['https://app.example.com/*', false],
    ['javascript:alert(1)', false],
    ['data:text/html,x', false],
    ['file:///tmp', false],
    ['myapp:', false],
    ['nonsense', false],
  ])('%s valid: %s', (entry, valid) => {
    expect(parsePattern(entry) !== undefined).toBe(valid);
  });
});
