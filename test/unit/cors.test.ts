// Which origins CORS_ORIGINS lets call, and the headers their answers carry.
import { describe, expect, it } from 'vitest';
import { corsHeaders, originPolicy } from '../../src/http/cors.js';

describe('originPolicy', () => {
  it('lets any origin call for *, never with credentials (the visitor’s cookies)', () => {
    const allows = originPolicy(['*']);
    expect(allows('https://anything.example')).toBe('anonymous');
    expect(allows('null')).toBe('anonymous');
  });

  it('gives credentials to exactly the listed origins', () => {
    const allows = originPolicy(['https://a.example', 'https://b.example']);
    expect(allows('https://a.example')).toBe('credentials');
    expect(allows('https://b.example')).toBe('credentials');
    expect(allows('https://a.example.evil')).toBe('none');
    expect(allows('http://a.example')).toBe('none');
  });

  it('with * and listed origins: credentials for the listed, none for the rest', () => {
    const allows = originPolicy(['*', 'https://a.example']);
    expect(allows('https://a.example')).toBe('credentials');
    expect(allows('https://evil.example')).toBe('anonymous');
  });

  it('never trusts the opaque origin null by name (sandboxed documents, files)', () => {
    expect(originPolicy(['null'])('null')).toBe('none');
  });
});

describe('corsHeaders', () => {
  const allows = originPolicy(['https://a.example']);

  it('reflects an allowed origin, with credentials', () => {
    expect(corsHeaders('https://a.example', allows)).toEqual({
      'access-control-allow-origin': 'https://a.example',
      'access-control-allow-credentials': 'true',
      'access-control-expose-headers': 'Content-Range, Preference-Applied, X-Request-Id, Retry-After, X-Plinth-Lsn',
      vary: 'Origin',
    });
  });

  it('reflects any origin under *, without credentials', () => {
    expect(corsHeaders('https://evil.example', originPolicy(['*']))).toEqual({
      'access-control-allow-origin': 'https://evil.example',
      'access-control-expose-headers': 'Content-Range, Preference-Applied, X-Request-Id, Retry-After, X-Plinth-Lsn',
      vary: 'Origin',
    });
  });

  it('gives nothing to an origin not allowed, or to a request without Origin', () => {
    expect(corsHeaders('https://b.example', allows)).toEqual({});
    expect(corsHeaders(undefined, allows)).toEqual({});
  });
});
