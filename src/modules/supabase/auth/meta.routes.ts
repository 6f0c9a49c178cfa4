// /auth/v1/settings (which sign-in methods this server offers) and /auth/v1/health.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../../deps.js';
import { readAuthConfig } from '../../auth/index.js';
import { VERSION } from '../../health/index.js';

const tags = ['supabase-auth'];
const security = [{ bearerAuth: [] }];

export function metaRoutes(deps: Pick<Deps, 'sql'>, providers: () => Promise<string[]>): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/settings', {
      config: { access: 'client' },
      schema: { tags, security, summary: 'Which sign-in methods this server offers (GoTrue settings)' },
      handler: async () => {
        const [config, names] = await Promise.all([readAuthConfig(deps.sql), providers()]);
        return {
          external: {
            email: true,
            phone: false,
            anonymous_users: config.anonymousSignInsEnabled,
            ...Object.fromEntries(names.map((n) => [n, true])),
          },
          disable_signup: config.disableSignup,
          mailer_autoconfirm: !config.requireEmailVerification,
          phone_autoconfirm: false,
          sms_provider: '',
          saml_enabled: true,
        };
      },
    });

    app.get('/health', {
      config: { access: 'public' },
      schema: { tags, summary: 'GoTrue health' },
      handler: async () => ({
        version: VERSION,
        name: 'GoTrue',
        description: 'Plinth serves the GoTrue API over its own auth',
      }),
    });
  };
}
