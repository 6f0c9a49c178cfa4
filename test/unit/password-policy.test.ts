// The configurable password rules.
import { describe, expect, it } from 'vitest';
import type { AppError } from '../../src/core/errors.js';
import { assertPasswordMeetsPolicy } from '../../src/modules/auth/password-policy.js';

const none = {
  passwordMinLength: 6,
  requireNumber: false,
  requireLowercase: false,
  requireUppercase: false,
  requireSpecialChar: false,
};
const all = {
  passwordMinLength: 8,
  requireNumber: true,
  requireLowercase: true,
  requireUppercase: true,
  requireSpecialChar: true,
};

describe('password policy', () => {
  it.each([
    [none, 'abcdef', []],
    [none, 'abcde', ['passwordMinLength']],
    [none, '🔑🔑🔑🔑🔑🔑', []],
    [all, 'Abcdef1!', []],
    [all, 'Äbcdéf1~', []],
    [all, 'abcdefg1!', ['requireUppercase']],
    [all, 'ABCDEFG1!', ['requireLowercase']],
    [all, 'Abcdefgh!', ['requireNumber']],
    [all, 'Abcdefgh1', ['requireSpecialChar']],
    [all, 'ab', ['passwordMinLength', 'requireNumber', 'requireUppercase', 'requireSpecialChar']],
  ])('%o / %s breaks %o', (policy, password, broken) => {
    let error: AppError | undefined;
    try {
      assertPasswordMeetsPolicy(password, policy);
    } catch (err) {
      error = err as AppError;
    }
    if (broken.length === 0) {
      expect(error).toBeUndefined();
      return;
    }
    expect(error?.code).toBe('VALIDATION_ERROR');
    expect((error!.details as { rule: string }[]).map((d) => d.rule)).toEqual(broken);
  });
});
