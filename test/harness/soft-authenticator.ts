// A software WebAuthn authenticator for integration tests: ES256 keys from node:crypto, CBOR from
// @simplewebauthn/server's helpers, answers shaped as PublicKeyCredential.toJSON(). It does what a
// real authenticator does (and, on request, what a broken or cloned one would: wrong counter,
// flags, origin or RP id), so the server's checks are exercised byte for byte.
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

const b64u = (bytes: Uint8Array | Buffer) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

export interface SoftCredential {
  id: Buffer;
  privateKey: KeyObject;
  rpId: string;
  userHandle: string;
  counter: number;
}

interface CreationOptions {
  challenge: string;
  rp: { id?: string };
  user: { id: string };
}

interface RequestOptions {
  challenge: string;
  rpId?: string;
}

export interface Tweaks {
  origin?: string;
  /** Sign for this RP id instead of the options' one. */
  rpId?: string;
  /** The counter to report (default: one more than the last). */
  counter?: number;
  /** Leave out user verification. */
  noUserVerification?: boolean;
  /** The client data's type. */
  type?: string;
  /** Replace the user handle sent back. */
  userHandle?: string;
}

function clientData(type: string, challenge: string, origin: string) {
  return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
}

function counterBytes(counter: number) {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(counter);
  return bytes;
}

export class SoftAuthenticator {
  readonly credentials: SoftCredential[] = [];

  constructor(readonly origin: string) {}

  /** navigator.credentials.create(): a new discoverable credential, answered as JSON. */
  create(options: CreationOptions, tweaks: Tweaks = {}) {
    const rpId = tweaks.rpId ?? options.rp.id!;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const cose = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
    const id = randomBytes(16);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(id.length);
    const flags = UP | AT | (tweaks.noUserVerification ? 0 : UV);
    const authData = Buffer.concat([
      sha256(rpId),
      Buffer.from([flags]),
      counterBytes(tweaks.counter ?? 0),
      Buffer.alloc(16),
      idLength,
      id,
      Buffer.from(cose),
    ]);
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', new Uint8Array(authData)],
      ]) as never,
    );
    const credential: SoftCredential = { id, privateKey, rpId, userHandle: options.user.id, counter: 0 };
    this.credentials.push(credential);
    return {
      credential,
      json: {
        id: b64u(id),
        rawId: b64u(id),
        type: 'public-key' as const,
        authenticatorAttachment: 'platform' as const,
        clientExtensionResults: {},
        response: {
          clientDataJSON: b64u(
            clientData(tweaks.type ?? 'webauthn.create', options.challenge, tweaks.origin ?? this.origin),
          ),
          attestationObject: b64u(attestationObject),
          transports: ['internal'],
        },
      },
    };
  }

  /** navigator.credentials.get() with this credential (the first one by default). */
  get(options: RequestOptions, tweaks: Tweaks = {}, credential = this.credentials[0]!) {
    const counter = tweaks.counter ?? credential.counter + 1;
    credential.counter = counter;
    const flags = UP | (tweaks.noUserVerification ? 0 : UV);
    const authData = Buffer.concat([
      sha256(tweaks.rpId ?? options.rpId ?? credential.rpId),
      Buffer.from([flags]),
      counterBytes(counter),
    ]);
    const clientDataJSON = clientData(tweaks.type ?? 'webauthn.get', options.challenge, tweaks.origin ?? this.origin);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), credential.privateKey);
    return {
      id: b64u(credential.id),
      rawId: b64u(credential.id),
      type: 'public-key' as const,
      authenticatorAttachment: 'platform' as const,
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64u(clientDataJSON),
        authenticatorData: b64u(authData),
        signature: b64u(signature),
        userHandle: tweaks.userHandle ?? credential.userHandle,
      },
    };
  }
}
