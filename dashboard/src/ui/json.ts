// JSON bodies for the API's write routes.

/** RequestInit for a JSON write (POST, PUT, PATCH, DELETE) with an optional body. */
export function jsonInit(method: string, body?: unknown): RequestInit {
  return body === undefined
    ? { method }
    : { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}
