// GoTrue's admin user API (/auth/v1/admin/users, the service_role key) as calls to Plinth's user
// services: create, list by page, get, update and delete, in GoTrue's shapes and error codes.
import type { z } from 'zod';
import { AppError } from '../../../core/errors.js';
import type { AuthServices } from '../../auth/index.js';
import type { adminCreateUserBodySchema, adminUpdateUserBodySchema } from './auth.schemas.js';
import { GoTrueError, translating, weakPassword } from './gotrue-errors.js';
import { toGoTrueUser } from './gotrue-shapes.js';

type CreateUser = z.output<typeof adminCreateUserBodySchema>;
type UpdateUser = z.output<typeof adminUpdateUserBodySchema>;

const unsupported = (what: string) =>
  new GoTrueError(422, 'validation_failed', `${what} is not supported on this server.`);

export type GoTrueAdmin = ReturnType<typeof createGoTrueAdmin>;

export function createGoTrueAdmin(auth: AuthServices) {
  return {
    async createUser(body: CreateUser, ip: string) {
      if (!body.email) throw body.phone ? unsupported('A phone user') : unsupported('A user without an email');
      if (!body.password) throw unsupported('A user without a password (use generate_link type invite)');
      if (body.app_metadata) throw unsupported('Setting app_metadata');
      const registration = {
        email: body.email,
        password: body.password,
        autoConfirm: body.email_confirm === true,
        profile: body.user_metadata ?? {},
      };
      const created = await translating(
        translating(
          auth.users.register(registration, true, ip),
          'AUTH_EMAIL_EXISTS',
          () => new GoTrueError(422, 'email_exists', 'A user with this email address has already been registered'),
        ),
        'VALIDATION_ERROR',
        weakPassword,
      );
      return toGoTrueUser(created.user);
    },

    async listUsers(page: number, perPage: number) {
      const found = await auth.users.listUsers({ limit: perPage, offset: (page - 1) * perPage });
      return { users: found.data.map((u) => toGoTrueUser(u)), aud: 'authenticated', total: found.total };
    },

    getUser: async (id: string) => toGoTrueUser(await auth.users.getUser(id)),

    /** Metadata merges into the profile; a new password ends every session of the user. */
    async updateUser(id: string, body: UpdateUser) {
      if (body.email !== undefined || body.phone !== undefined) throw unsupported('Changing the email or phone');
      if (body.app_metadata) throw unsupported('Setting app_metadata');
      if (body.ban_duration !== undefined) throw unsupported('Banning users');
      if (body.email_confirm !== undefined) throw unsupported('Changing email_confirm');
      await auth.users.getUser(id);
      if (body.password !== undefined) {
        await translating(auth.users.changePassword(id, null, body.password), 'VALIDATION_ERROR', weakPassword);
      }
      if (body.user_metadata) await auth.users.updateProfile(id, body.user_metadata);
      return toGoTrueUser(await auth.users.getUser(id));
    },

    /** The deleted user (GoTrue answers with it); 404 user_not_found when there was none. */
    async deleteUser(id: string) {
      const user = await auth.users.getUser(id);
      if ((await auth.users.deleteUsers([id])) === 0) throw new AppError('AUTH_USER_NOT_FOUND');
      return toGoTrueUser(user);
    },
  };
}
