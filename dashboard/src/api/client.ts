// The dashboard's only way to the server: the admin session (access token in memory, refresh
// token in the httpOnly cookie, CSRF token in localStorage, as web clients do) and JSON requests
// that refresh the session once when the access token has expired.

export interface ProjectAdmin {
  subject: string;
  username: string;
}

/** An error answer of the API, with the fix it suggests. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly nextActions?: string,
    /** The error body's `details` (e.g. which statement failed and where). */
    readonly details?: unknown,
  ) {
    super(message);
  }
}

interface SessionAnswer {
  projectAdmin: ProjectAdmin;
  accessToken: string;
  csrfToken?: string | null;
}

const CSRF_KEY = 'plinth.dashboard.csrf';

async function errorOf(res: Response): Promise<ApiError> {
  const body = (await res.json().catch(() => null)) as {
    message?: string;
    nextActions?: string;
    details?: unknown;
  } | null;
  return new ApiError(body?.message ?? `${res.status} ${res.statusText}`, res.status, body?.nextActions, body?.details);
}

export class ApiClient {
  private accessToken: string | null = null;
  private resuming: Promise<ProjectAdmin | null> | null = null;

  private accept(answer: SessionAnswer): ProjectAdmin {
    this.accessToken = answer.accessToken;
    if (answer.csrfToken) localStorage.setItem(CSRF_KEY, answer.csrfToken);
    return answer.projectAdmin;
  }

  async signIn(email: string, password: string): Promise<ProjectAdmin> {
    const res = await fetch('/api/auth/admin/sessions?client_type=web', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      credentials: 'same-origin',
      body: JSON.stringify({ email, password }),
    });
    if (!res.ok) throw await errorOf(res);
    return this.accept((await res.json()) as SessionAnswer);
  }

  /** The session kept by the cookie (after a reload), or null when there is none. */
  resume(): Promise<ProjectAdmin | null> {
    this.resuming ??= this.refresh().finally(() => {
      this.resuming = null;
    });
    return this.resuming;
  }

  private async refresh(): Promise<ProjectAdmin | null> {
    const csrf = localStorage.getItem(CSRF_KEY);
    if (!csrf) return null;
    const res = await fetch('/api/auth/admin/refresh?client_type=web', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
      credentials: 'same-origin',
      body: '{}',
    });
    if (!res.ok) {
      localStorage.removeItem(CSRF_KEY);
      this.accessToken = null;
      return null;
    }
    return this.accept((await res.json()) as SessionAnswer);
  }

  async signOut(): Promise<void> {
    const csrf = localStorage.getItem(CSRF_KEY) ?? '';
    await fetch('/api/auth/admin/logout', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': csrf, ...this.authorization() },
      credentials: 'same-origin',
      body: '{}',
    }).catch(() => undefined);
    localStorage.removeItem(CSRF_KEY);
    this.accessToken = null;
  }

  private authorization(): Record<string, string> {
    return this.accessToken ? { authorization: `Bearer ${this.accessToken}` } : {};
  }

  /** A request as the admin; a 401 refreshes the session once and retries. Non-2xx throws ApiError. */
  async request(path: string, init: RequestInit = {}): Promise<Response> {
    const send = () =>
      fetch(path, { ...init, credentials: 'same-origin', headers: { ...init.headers, ...this.authorization() } });
    let res = await send();
    if (res.status === 401 && (await this.resume())) res = await send();
    if (!res.ok) throw await errorOf(res);
    return res;
  }

  async json<T>(path: string, init?: RequestInit): Promise<T> {
    return (await (await this.request(path, init)).json()) as T;
  }
}
