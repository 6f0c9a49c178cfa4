// The password rules of the authentication configuration, checked with one clear message.
import { AppError } from '../../core/errors.js';
import type { AuthConfig } from './auth.schemas.js';

type Policy = Pick<
  AuthConfig,
  'passwordMinLength' | 'requireNumber' | 'requireLowercase' | 'requireUppercase' | 'requireSpecialChar'
>;

const rules: { enabled: (p: Policy) => boolean; test: RegExp; rule: string; text: string }[] = [
  { enabled: (p) => p.requireNumber, test: /\p{Nd}/u, rule: 'requireNumber', text: 'a number' },
  { enabled: (p) => p.requireLowercase, test: /\p{Ll}/u, rule: 'requireLowercase', text: 'a lowercase letter' },
  { enabled: (p) => p.requireUppercase, test: /\p{Lu}/u, rule: 'requireUppercase', text: 'an uppercase letter' },
  {
    enabled: (p) => p.requireSpecialChar,
    test: /[^\p{L}\p{N}\s]/u,
    rule: 'requireSpecialChar',
    text: 'a special character',
  },
];

/** Throws a 400 naming every rule the password breaks. */
export function assertPasswordMeetsPolicy(password: string, policy: Policy): void {
  const broken: { rule: string; text: string }[] = [];
  if ([...password].length < policy.passwordMinLength) {
    broken.push({ rule: 'passwordMinLength', text: `at least ${policy.passwordMinLength} characters` });
  }
  for (const r of rules) if (r.enabled(policy) && !r.test.test(password)) broken.push(r);
  if (broken.length === 0) return;
  throw new AppError('VALIDATION_ERROR', `Password must contain ${broken.map((b) => b.text).join(', ')}.`, {
    details: broken.map((b) => ({ field: 'password', rule: b.rule, message: `must contain ${b.text}` })),
  });
}
