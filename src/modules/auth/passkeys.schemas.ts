// The passkey (WebAuthn) wire contract: ceremony options, the browser's credential JSON as
// @simplewebauthn/browser and PublicKeyCredential.toJSON() produce it, and the passkey list.
import { z } from 'zod';
import { userIdParamsSchema } from './auth.schemas.js';

const base64url = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[A-Za-z0-9_-]+={0,2}$/, 'must be base64url');

export const passkeyNameSchema = z.string().trim().min(1).max(100);

const credentialBase = {
  id: base64url(1400),
  rawId: base64url(1400),
  type: z.literal('public-key'),
  authenticatorAttachment: z
    .enum(['platform', 'cross-platform'])
    .nullish()
    .transform((v) => v ?? undefined),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
};

/** navigator.credentials.create()'s answer, as JSON. */
export const registrationCredentialSchema = z.object({
  ...credentialBase,
  response: z.looseObject({
    clientDataJSON: base64url(8192),
    attestationObject: base64url(65536),
    transports: z.array(z.string().max(32)).max(10).optional(),
  }),
});

/** navigator.credentials.get()'s answer, as JSON. */
export const authenticationCredentialSchema = z.object({
  ...credentialBase,
  response: z.looseObject({
    clientDataJSON: base64url(8192),
    authenticatorData: base64url(8192),
    signature: base64url(1024),
    userHandle: z
      .string()
      .max(1024)
      .nullish()
      .transform((v) => v ?? undefined),
  }),
});

const challengeIdSchema = z.uuid({ message: 'must be the challengeId the options came with' });

export const registrationOptionsBodySchema = z.object({ name: passkeyNameSchema.optional() }).nullish();

export const registerPasskeyBodySchema = z.object({
  challengeId: challengeIdSchema,
  credential: registrationCredentialSchema,
  name: passkeyNameSchema.optional(),
});

export const verifyPasskeyBodySchema = z.object({
  challengeId: challengeIdSchema,
  credential: authenticationCredentialSchema,
});

/** Options for navigator.credentials.create/get (publicKey), with the challenge to send back. */
export const ceremonyOptionsSchema = z.object({
  challengeId: z.uuid(),
  expiresAt: z.string(),
  options: z.record(z.string(), z.unknown()),
});

export const passkeySchema = z.object({
  id: z.uuid(),
  name: z.string(),
  credentialId: z.string(),
  transports: z.array(z.string()),
  deviceType: z.enum(['singleDevice', 'multiDevice']),
  backedUp: z.boolean(),
  aaguid: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
});
export type Passkey = z.output<typeof passkeySchema>;

export const passkeyListSchema = z.object({ data: z.array(passkeySchema) });

export const passkeyParamsSchema = z.object({ id: z.uuid({ message: 'must be a passkey id (uuid)' }) });

export const userPasskeyParamsSchema = userIdParamsSchema.extend(passkeyParamsSchema.shape);

export const renamePasskeyBodySchema = z.object({ name: passkeyNameSchema });

export const relyingPartySchema = z.object({
  rpId: z.string(),
  rpName: z.string(),
  origins: z.array(z.string()),
});
