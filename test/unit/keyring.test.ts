// Envelope encryption: round trips, tamper detection, and rotation by key id.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createKeyring } from '../../src/core/keyring.js';

describe('keyring', () => {
  const key = randomBytes(32);

  it('opens what it sealed, and never seals the same way twice', () => {
    const ring = createKeyring(key);
    const a = ring.seal('s3cret ✓');
    const b = ring.seal('s3cret ✓');
    expect(a).not.toBe(b);
    expect(a).not.toContain('s3cret');
    expect(ring.open(a)).toBe('s3cret ✓');
    expect(ring.open(b)).toBe('s3cret ✓');
  });

  it('rejects a tampered envelope', () => {
    const ring = createKeyring(key);
    const parts = ring.seal('value').split(':');
    const data = Buffer.from(parts[4]!, 'base64url');
    data[0] = data[0]! ^ 1;
    parts[4] = data.toString('base64url');
    expect(() => ring.open(parts.join(':'))).toThrow();
  });

  it('rotates: a new primary key still opens envelopes sealed by a previous key', () => {
    const old = createKeyring(key);
    const sealedBefore = old.seal('kept');
    const rotated = createKeyring(randomBytes(32), [key]);
    expect(rotated.open(sealedBefore)).toBe('kept');
    const sealedAfter = rotated.seal('new');
    expect(sealedAfter.split(':')[1]).not.toBe(sealedBefore.split(':')[1]);
    expect(() => old.open(sealedAfter)).toThrow(/No encryption key/);
  });

  it('refuses keys that are not 32 bytes', () => {
    expect(() => createKeyring(randomBytes(16))).toThrow();
  });
});
