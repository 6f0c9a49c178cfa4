// A stand-in for Google's/Apple's ID-token signer: its own RS256 keys, their JWKS served over real http on
// loopback, and ID tokens signed with them (or with a key the JWKS does not list) for native sign-in tests.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';

export interface SignOptions {
  /** The `kid` header; defaults to the kid of the key used. */
  kid?: string;
  /** Sign with a second key that the JWKS does not list (its kid is not in the JWKS either). */
  unknownKey?: boolean;
  alg?: 'RS256';
}

export interface IdTokenIssuer {
  /** The `iss` claim put in tokens by default (not an http address). */
  issuer: string;
  /** http://127.0.0.1:<port>/jwks */
  jwksUrl: string;
  /** The kid of the key the JWKS lists. */
  kid: string;
  /**
   * Signs `claims` as a JWT (typ JWT). Absent `iss` becomes `issuer`, absent `iat` now, absent `exp` now + 600 s;
   * a claim given as `undefined` is left out of the token instead (e.g. `{ exp: undefined }` for no expiry).
   */
  sign(claims: Record<string, unknown>, options?: SignOptions): Promise<string>;
  /** How many times the JWKS was fetched (for caching assertions). */
  jwksRequests(): number;
  close(): Promise<void>;
}

export async function startIdTokenIssuer(options: { issuer?: string } = {}): Promise<IdTokenIssuer> {
  const issuer = options.issuer ?? 'https://accounts.example.test';
  const known = await generateKeyPair('RS256', { extractable: true });
  const unknown = await generateKeyPair('RS256');
  const kid = 'issuer-key-1';
  const unknownKid = 'issuer-key-unlisted';
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(known.publicKey)), kid, alg: 'RS256', use: 'sig' }] });
  let jwksRequests = 0;

  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url?.split('?')[0] === '/jwks') {
      jwksRequests += 1;
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'public, max-age=3600' });
      res.end(jwks);
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"error":"not_found"}');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    issuer,
    jwksUrl: `http://127.0.0.1:${port}/jwks`,
    kid,

    async sign(claims, signOptions = {}) {
      const now = Math.floor(Date.now() / 1000);
      const payload: Record<string, unknown> = { iss: issuer, iat: now, exp: now + 600 };
      for (const [name, value] of Object.entries(claims)) {
        if (value === undefined) delete payload[name];
        else payload[name] = value;
      }
      const key = signOptions.unknownKey ? unknown.privateKey : known.privateKey;
      return new SignJWT(payload as JWTPayload)
        .setProtectedHeader({
          alg: signOptions.alg ?? 'RS256',
          typ: 'JWT',
          kid: signOptions.kid ?? (signOptions.unknownKey ? unknownKid : kid),
        })
        .sign(key);
    },

    jwksRequests: () => jwksRequests,

    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
