// The dashboard's only way to the server: the admin session (access and CSRF tokens in memory
// only, so no script can read them from storage; refresh token in the httpOnly cookie) and JSON
// requests that refresh the session once when the access token has expired.

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
    /** The error body's `details`, e.g. which statement failed, or { line, column } of a function that did not deploy. */
    readonly details?: unknown,
    /** The error body's `error` code, e.g. AUTH_MFA_REQUIRED. */
    readonly code?: string,
  ) {
    super(message);
  }
}

interface SessionAnswer {
  projectAdmin: ProjectAdmin;
  accessToken: string;
  csrfToken?: string | null;
}

async function errorOf(res: Response): Promise<ApiError> {
  const body = (await res.json().catch(() => null)) as {
    error?: string;
    message?: string;
    nextActions?: string;
    details?: unknown;
  } | null;
  return new ApiError(
    body?.message ?? `${res.status} ${res.statusText}`,
    res.status,
    body?.nextActions,
    body?.details,
    body?.error,
  );
}

/** A JSON object body, or {} when there is none or it is not JSON. */
function jsonOrEmpty(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * Only whether this browser may hold a session cookie (never a token): a first visit asks for no
 * refresh, which would fail with a 401 the console reports.
 */
const SIGNED_IN_KEY = 'plinth.dashboard.signed-in';

export class ApiClient {
  private accessToken: string | null = null;
  /** None after a reload: the server then takes the browser's word that this origin asks (Sec-Fetch-Site). */
  private csrfToken: string | null = null;
  private resuming: Promise<ProjectAdmin | null> | null = null;

  private accept(answer: SessionAnswer): ProjectAdmin {
    this.accessToken = answer.accessToken;
    if (answer.csrfToken) this.csrfToken = answer.csrfToken;
    localStorage.setItem(SIGNED_IN_KEY, '1');
    return answer.projectAdmin;
  }

  /** `totpCode`: the authenticator's current code, when the project requires MFA for the admin. */
  async signIn(email: string, password: string, totpCode?: string): Promise<ProjectAdmin> {
    const res = await fetch('/api/auth/admin/sessions?client_type=web', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      credentials: 'same-origin',
      body: JSON.stringify(totpCode ? { email, password, totpCode } : { email, password }),
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
    if (!localStorage.getItem(SIGNED_IN_KEY)) return null;
    const res = await fetch('/api/auth/admin/refresh?client_type=web', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...this.csrfHeader() },
      credentials: 'same-origin',
      body: '{}',
    });
    if (!res.ok) {
      this.forget();
      return null;
    }
    return this.accept((await res.json()) as SessionAnswer);
  }

  async signOut(): Promise<void> {
    await fetch('/api/auth/admin/logout', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...this.csrfHeader(), ...this.authorization() },
      credentials: 'same-origin',
      body: '{}',
    }).catch(() => undefined);
    this.forget();
  }

  private forget(): void {
    localStorage.removeItem(SIGNED_IN_KEY);
    this.csrfToken = null;
    this.accessToken = null;
  }

  private csrfHeader(): Record<string, string> {
    return this.csrfToken ? { 'x-csrf-token': this.csrfToken } : {};
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

  /** A request as the admin that answers whatever the status (e.g. invoking a function). */
  async requestAnyStatus(path: string, init: RequestInit = {}): Promise<Response> {
    const send = () =>
      fetch(path, { ...init, credentials: 'same-origin', headers: { ...init.headers, ...this.authorization() } });
    const res = await send();
    if (res.status === 401 && this.accessToken && (await this.resume())) return send();
    return res;
  }

  /**
   * Sends a body with XMLHttpRequest (fetch reports no upload progress): `onProgress` gets the
   * fraction sent, 0 to 1. A 401 refreshes the session once and sends again. Non-2xx throws ApiError.
   */
  async upload<T>(method: string, path: string, body: Blob, onProgress: (fraction: number) => void): Promise<T> {
    const send = () =>
      new Promise<XMLHttpRequest>((resolve, reject) => {
        const xhr = new XMLHttpRequest();
        xhr.open(method, path);
        for (const [name, value] of Object.entries(this.authorization())) xhr.setRequestHeader(name, value);
        xhr.setRequestHeader('content-type', body.type || 'application/octet-stream');
        xhr.upload.onprogress = (event) => {
          if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total);
        };
        xhr.onload = () => resolve(xhr);
        xhr.onerror = () => reject(new ApiError('The upload failed: network error', 0));
        xhr.send(body);
      });
    let xhr = await send();
    if (xhr.status === 401 && (await this.resume())) xhr = await send();
    const answer = jsonOrEmpty(xhr.responseText);
    if (xhr.status < 200 || xhr.status >= 300) {
      const message = typeof answer.message === 'string' ? answer.message : `${xhr.status} ${xhr.statusText}`;
      throw new ApiError(message, xhr.status, answer.nextActions as string | undefined);
    }
    onProgress(1);
    return answer as T;
  }

  /**
   * Uploads a large file through the tus endpoint (tus-js-client, loaded on first use so it stays
   * out of the dashboard's first chunk) in chunks. A failed chunk is retried from the offset the
   * server reports (a 401 refreshes the session first), and the same file sent again to the same
   * place after a failure resumes the upload left behind: its URL is kept in localStorage until it
   * completes. `onProgress` gets the fraction the server has, 0 to 1.
   */
  async uploadResumable(
    file: File,
    metadata: { bucketName: string; objectName: string; contentType: string },
    onProgress: (fraction: number) => void,
  ): Promise<void> {
    const { Upload } = await import('tus-js-client');
    let refreshing: Promise<unknown> = Promise.resolve();
    await new Promise<void>((resolve, reject) => {
      const upload = new Upload(file, {
        endpoint: RESUMABLE_ENDPOINT,
        chunkSize: RESUMABLE_CHUNK_BYTES,
        retryDelays: [0, 1_000, 3_000, 5_000],
        metadata,
        // The place is part of the fingerprint: the same file sent to another folder is another upload.
        fingerprint: async (f) =>
          ['plinth-dashboard', metadata.bucketName, metadata.objectName, f.type, f.size, f.lastModified].join('/'),
        removeFingerprintOnSuccess: true,
        onBeforeRequest: async (req) => {
          await refreshing;
          for (const [name, value] of Object.entries(this.authorization())) req.setHeader(name, value);
        },
        onShouldRetry: (err) => {
          const status = err.originalResponse?.getStatus() ?? 0;
          if (status === 401) {
            refreshing = this.resume();
            return true;
          }
          // As tus-js-client does by default: not a refusal (4xx) unless a lock or a conflict that passes.
          return status === 0 || status >= 500 || status === 409 || status === 423;
        },
        onProgress: (sent, total) => onProgress(total > 0 ? sent / total : 0),
        onSuccess: () => resolve(),
        onError: (err) => {
          const body = 'originalResponse' in err ? jsonOrEmpty(err.originalResponse?.getBody() ?? '') : {};
          const status = 'originalResponse' in err ? (err.originalResponse?.getStatus() ?? 0) : 0;
          reject(
            typeof body.message === 'string'
              ? new ApiError(body.message, status, body.nextActions as string | undefined)
              : new ApiError(`The upload failed: ${err.message.split('\n')[0]}`, status),
          );
        },
      });
      void upload.findPreviousUploads().then((previous) => {
        if (previous[0]) upload.resumeFromPreviousUpload(previous[0]);
        upload.start();
      }, reject);
    });
    onProgress(1);
  }
}

/** Plinth's tus 1.0 endpoint (src/modules/storage/resumable). */
const RESUMABLE_ENDPOINT = '/api/storage/uploads/resumable';
/** Bytes per PATCH: what a retry may have to send again. */
const RESUMABLE_CHUNK_BYTES = 8 * 1024 * 1024;
