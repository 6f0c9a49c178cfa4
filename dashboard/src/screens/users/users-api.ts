// The users screen's view of the API: users, their live sessions, and the calls it makes.
import type { ApiClient } from '../../api/client';
import { jsonBody } from '../../api/json-body';

export interface User {
  id: string;
  /** Null for an anonymous user. */
  email: string | null;
  isAnonymous: boolean;
  emailVerified: boolean;
  providers: string[];
  profile: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

export interface UsersPage {
  data: User[];
  pagination: { offset: number; limit: number; total: number };
}

export interface UserSession {
  id: string;
  createdAt: string;
  refreshedAt: string | null;
  expiresAt: string;
}

export interface Identity {
  id: string;
  provider: string;
  providerAccountId: string;
  email: string | null;
  createdAt: string;
}

/** The list's anonymous filter: all users, only anonymous ones, or only the others. */
export type AnonymousFilter = 'all' | 'true' | 'false';

export const PAGE_SIZE = 20;

export const usersApi = (api: ApiClient) => ({
  list: (search: string, offset: number, anonymous: AnonymousFilter = 'all') =>
    api.json<UsersPage>(
      `/api/auth/users?${new URLSearchParams({
        limit: String(PAGE_SIZE),
        offset: String(offset),
        search,
        ...(anonymous === 'all' ? {} : { anonymous }),
      })}`,
    ),
  identities: (id: string) => api.json<{ data: Identity[] }>(`/api/auth/users/${id}/identities`),
  get: (id: string) => api.json<User>(`/api/auth/users/${id}`),
  create: (body: { email: string; password: string; name?: string; autoConfirm: boolean }) =>
    api.json<{ user: User }>('/api/auth/users', jsonBody('POST', body)),
  remove: (id: string) => api.json('/api/auth/users', jsonBody('DELETE', { userIds: [id] })),
  sessions: (id: string) => api.json<{ data: UserSession[] }>(`/api/auth/users/${id}/sessions`),
  revokeSession: (id: string, sessionId: string) =>
    api.json(`/api/auth/users/${id}/sessions/${sessionId}`, jsonBody('DELETE')),
  revokeAllSessions: (id: string) => api.json(`/api/auth/users/${id}/sessions`, jsonBody('DELETE')),
  sendReset: (email: string, redirectTo?: string) =>
    api.json<{ message: string }>('/api/auth/email/send-reset-password', jsonBody('POST', { email, redirectTo })),
});
