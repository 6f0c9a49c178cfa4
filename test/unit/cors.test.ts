// Which origins CORS_ORIGINS lets call, and the headers their answers carry.
import { describe, expect, it } from 'vitest';
import { corsHeaders, originPolicy } from '../../src/http/cors.js';

describe('originPolicy', () => {
  it('allows any origin for *', () => {
    expect(originPolicy(['*'])('https://anything.example')).toBe(true);
  });

  it('allows exactly the listed origins otherwise', () => {
    const allows = originPolicy(['https://a.example', 'https://b.example']);
    expect(allows('https://a.example')).toBe(true);
    expect(allows('https://b.example')).toBe(true);
    expect(allows('https://a.example.evil')).toBe(false);
    expect(allows('http://a.example')).toBe(false);
  });
});

describe('corsHeaders', () => {
  const allows = originPolicy(['https://a.example']);

  it('reflects an allowed origin, with credentials', () => {
    expect(corsHeaders('https://a.example', allows)).toEqual({
      'access-control-allow-origin': 'https://a.example',
      'access-control-allow-credentials': 'true',
      'access-control-expose-headers': 'Content-Range, Preference-Applied, X-Request-Id, Retry-After',
      vary: 'Origin',
    });
  });

  it('gives nothing to an origin not allowed, or to a request without Origin', () => {
    expect(corsHeaders('https://b.example', allows)).toEqual({});
    expect(corsHeaders(undefined, allows)).toEqual({});
  });
});
