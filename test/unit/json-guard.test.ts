// The JSON bounds: nesting depth found without recursion in text (and where: the top-level key)
// and in values, and values turned into text only when they are within the bounds.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/core/errors.js';
import { JSON_DEPTH_CEILING, jsonText, nestsDeeperThan, textTooDeepAt } from '../../src/core/json-guard.js';

const arrays = (depth: number, inner = '1') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;

describe('textTooDeepAt', () => {
  it.each<[string, string, number, string | undefined]>([
    ['a flat object', '{"a":1,"b":"x"}', 1, undefined],
    ['exactly the limit', arrays(3), 3, undefined],
    ['one past the limit, not an object: body', arrays(4), 3, 'body'],
    ['under a top-level key', `{"a":1,"deep":{"x":${arrays(5)}}}`, 3, 'deep'],
    [
      'the key that nests, not the last one seen deeper down',
      `{"ok":{"k":1},"profile":{"inner":${arrays(5)}}}`,
      3,
      'profile',
    ],
    ['an escaped key', `{"we\\"ird":${arrays(5)}}`, 3, 'we"ird'],
    ['brackets inside strings do not count', `{"s":"${'['.repeat(100)}","t":"{{{{\\"[[["}`, 2, undefined],
    ['an escaped quote does not end the string', `["\\"[[[[[["]`, 2, undefined],
    ['siblings do not add up', `[${Array(50).fill('[[1]]').join(',')}]`, 3, undefined],
    ['100,000 levels: found at once, without recursion', arrays(100_000), 64, 'body'],
  ])('%s', (_label, text, max, expected) => {
    expect(textTooDeepAt(text, max)).toBe(expected);
  });
});

describe('nestsDeeperThan and jsonText', () => {
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = [deep];

  it('measures values without recursion (100,000 levels)', () => {
    expect(nestsDeeperThan(deep, 64)).toBe(true);
    expect(nestsDeeperThan(JSON.parse(arrays(64)), 64)).toBe(false);
    expect(nestsDeeperThan({ a: [{ b: {} }] }, 3)).toBe(true);
    expect(nestsDeeperThan('[[[[', 1)).toBe(false);
  });

  it('turns values within bounds into the text JSON.stringify gives', () => {
    const value = { a: [1, 'two', { three: null }], b: true };
    expect(jsonText(value)).toBe(JSON.stringify(value));
    expect(jsonText(null)).toBe('null');
  });

  it.each<[string, unknown, Parameters<typeof jsonText>[1], RegExp]>([
    [
      'deeper than the ceiling (JSON.stringify would overflow the stack)',
      deep,
      {},
      new RegExp(`${JSON_DEPTH_CEILING} levels`),
    ],
    ['deeper than the limit given', JSON.parse(arrays(5)), { maxDepth: 4 }, /4 levels/],
    ['longer than the limit given', { s: 'x'.repeat(100) }, { maxChars: 50 }, /50 characters/],
  ])('refuses a value %s with 400 VALIDATION_ERROR', (_label, value, limits, message) => {
    let error: unknown;
    try {
      jsonText(value, limits);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).statusCode).toBe(400);
    expect((error as AppError).message).toMatch(message);
    expect((error as AppError).nextActions).toEqual(expect.any(String));
  });

  it('a limit above the ceiling is held to the ceiling', () => {
    expect(() => jsonText(JSON.parse(arrays(JSON_DEPTH_CEILING + 1)), { maxDepth: 5000 })).toThrow(AppError);
  });
});
