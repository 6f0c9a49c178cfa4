// Question: what does an access token cost per operation: RS256 and ES256 signing and verifying, ES256 signed on the
//   event loop or on the thread pool, and a remembered token?
// Last answer: 2026-11-27 15:20–16:40: an ES256 signature 33 µs of CPU on the event loop, 61 µs through the thread
//   pool, RS256 335 µs (stays on the pool); 2026-11-25 (shared VM): RS256 verify 66 µs, ES256 verify 166, a
//   remembered token 0.3 µs.
//
// `npx tsx bench/probes/token-cost.ts`: the CPU an access token costs Plinth, per operation, measured as
// this process's CPU time (not wall time, so a busy machine skews it less): signing and verifying
// with RS256 (RSA-2048, keys made before) and ES256 (P-256, keys made now; signed on the event loop,
// and on the thread pool for comparison), and a repeated token
// through the verified-token cache (core/verified-tokens.ts). Rounds alternate the variants;
// prints the median µs per operation. TOKEN_BENCH_OPS (default 2000 per round), TOKEN_BENCH_ROUNDS (5).
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { signJwt, signingKeyFromPem, verifyJwt, type SigningKey } from '../../src/core/jwt.js';
import { createVerifiedTokenCache } from '../../src/core/verified-tokens.js';
import { median } from '../lib/median.js';

const OPS = Number(process.env.TOKEN_BENCH_OPS ?? 2000);
const ROUNDS = Number(process.env.TOKEN_BENCH_ROUNDS ?? 5);

const keyOf = (kid: string, type: 'rsa' | 'ec'): SigningKey => {
  const { privateKey } =
    type === 'rsa'
      ? generateKeyPairSync('rsa', { modulusLength: 2048 })
      : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return signingKeyFromPem(kid, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
};

/** CPU µs per call of `op`, `OPS` calls (awaited one by one: signing runs on the thread pool). */
async function cpuMicros(op: () => unknown): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < OPS; i++) await op();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / OPS;
}

const signOnPool = promisify(sign);

async function main(): Promise<void> {
  const keys = { RS256: keyOf('kid_rsa', 'rsa'), ES256: keyOf('kid_ec', 'ec') };
  const publicKeys = new Map<string, KeyObject>(Object.values(keys).map((k) => [k.kid, k.publicKey]));
  const claims = { sub: '00000000-0000-4000-8000-000000000001', email: 'a@b.c', role: 'authenticated', sid: 's' };
  const exp = Math.floor(Date.now() / 1000) + 900;
  const tokens = {
    RS256: await signJwt(keys.RS256, { ...claims, exp }),
    ES256: await signJwt(keys.ES256, { ...claims, exp }),
  };
  const now = () => Math.floor(Date.now() / 1000);
  const remembering = createVerifiedTokenCache({ maxEntries: 10_000 });
  const variants: Record<string, () => unknown> = {
    'RS256 sign': () => signJwt(keys.RS256, { ...claims, exp }),
    'ES256 sign': () => signJwt(keys.ES256, { ...claims, exp }),
    // What signJwt did before ES256 signed on the event loop: the same signature on the thread pool.
    'ES256 sign on the thread pool': () =>
      signOnPool('sha256', Buffer.from(tokens.ES256), { key: keys.ES256.privateKey, dsaEncoding: 'ieee-p1363' }),
    'RS256 verify': () => verifyJwt(tokens.RS256, publicKeys, now()),
    'ES256 verify': () => verifyJwt(tokens.ES256, publicKeys, now()),
    'ES256 verify, remembered token': () => remembering.verify(tokens.ES256, publicKeys, now()),
  };
  const results: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((n) => [n, []]));
  for (const op of Object.values(variants)) await cpuMicros(op); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    const names = Object.keys(variants);
    for (const name of round % 2 === 0 ? names : names.reverse()) results[name]!.push(await cpuMicros(variants[name]!));
  }
  for (const [name, rounds] of Object.entries(results)) {
    console.log(
      `${name.padEnd(32)} ${median(rounds).toFixed(1).padStart(8)} µs CPU (rounds: ${rounds.map((r) => r.toFixed(0)).join(', ')})`,
    );
  }
}

await main();
