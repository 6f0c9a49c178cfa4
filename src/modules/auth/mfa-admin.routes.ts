// The admin side of MFA: a user's factors (list, remove: GoTrue's /admin/users/{id}/factors),
// the admin's own TOTP factors, and the project setting that makes the admin sign-in need one.
// Admin writes here are audited by the request log like every admin write.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { userIdParamsSchema } from './auth.schemas.js';
import type { AuthServices } from './auth-services.js';
import {
  adminVerifyBodySchema,
  enrollBodySchema,
  enrollResponseSchema,
  factorListSchema,
  factorParamsSchema,
  factorSchema,
  mfaSettingsSchema,
  removedSchema,
  userFactorParamsSchema,
} from './mfa.schemas.js';

const tags = ['auth'];
const adminOnly = { access: 'admin' as const };
const security = [{ bearerAuth: [] }];
const removed = { success: true, message: 'Factor removed' };

export function mfaAdminRoutes(auth: AuthServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/auth/users/:userId/factors', {
      config: adminOnly,
      schema: {
        tags,
        summary: "A user's MFA factors",
        security,
        params: userIdParamsSchema,
        response: { 200: factorListSchema },
      },
      handler: async (request) => {
        await auth.users.getUser(request.params.userId);
        return { data: await auth.mfa.list(request.params.userId) };
      },
    });

    app.delete('/api/auth/users/:userId/factors/:factorId', {
      config: adminOnly,
      schema: {
        tags,
        summary: "Remove a user's factor (e.g. a lost phone); the last verified one takes the recovery codes along",
        security,
        params: userFactorParamsSchema,
        response: { 200: removedSchema },
      },
      handler: async (request) => {
        await auth.users.getUser(request.params.userId);
        await auth.mfa.removeOfUser(request.params.userId, request.params.factorId);
        return removed;
      },
    });

    app.get('/api/auth/mfa/settings', {
      config: adminOnly,
      schema: { tags, summary: 'Project MFA settings', security, response: { 200: mfaSettingsSchema } },
      handler: () => auth.adminMfa.settings(),
    });

    app.put('/api/auth/mfa/settings', {
      config: adminOnly,
      schema: {
        tags,
        summary: 'Require a TOTP code at the admin sign-in (needs a verified admin factor first)',
        security,
        body: mfaSettingsSchema,
        response: { 200: mfaSettingsSchema },
      },
      handler: (request) => auth.adminMfa.updateSettings(request.body.requireAdminMfa),
    });

    app.get('/api/auth/admin/mfa/factors', {
      config: adminOnly,
      schema: { tags, summary: "The project admin's TOTP factors", security, response: { 200: factorListSchema } },
      handler: async () => ({ data: await auth.adminMfa.list() }),
    });

    app.post('/api/auth/admin/mfa/factors', {
      config: adminOnly,
      schema: {
        tags,
        summary: 'Enroll a TOTP factor of the project admin (secret, URI and QR code shown once)',
        security,
        body: enrollBodySchema,
        response: { 200: enrollResponseSchema },
      },
      handler: (request) => auth.adminMfa.enroll(request.body.friendlyName),
    });

    app.post('/api/auth/admin/mfa/factors/:factorId/verify', {
      config: adminOnly,
      schema: {
        tags,
        summary: 'Confirm an admin factor with a current code',
        security,
        params: factorParamsSchema,
        body: adminVerifyBodySchema,
        response: { 200: factorSchema },
      },
      handler: (request) => auth.adminMfa.verify(request.params.factorId, request.body.totpCode),
    });

    app.delete('/api/auth/admin/mfa/factors/:factorId', {
      config: adminOnly,
      schema: {
        tags,
        summary: 'Remove a factor of the project admin',
        security,
        params: factorParamsSchema,
        response: { 200: removedSchema },
      },
      handler: async (request) => {
        await auth.adminMfa.remove(request.params.factorId);
        return removed;
      },
    });
  };
}
