// Base64 with the semantics of Deno std 0.224 `encoding/base64` (what the reference runtime hands
// functions): encodeBase64 takes a string (UTF-8 encoded first), a Uint8Array or an ArrayBuffer and
// returns padded standard base64; decodeBase64 returns the bytes and throws on input atob rejects.

function bytesOf(data: unknown): Uint8Array {
  if (typeof data === 'string') return new TextEncoder().encode(data);
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  const kind = data === null ? 'null' : typeof data === 'object' ? (data.constructor?.name ?? 'object') : typeof data;
  throw new TypeError(
    `The input must be a Uint8Array, a string, or an ArrayBuffer. Received a value of the type ${kind}.`,
  );
}

export function encodeBase64(data: ArrayBuffer | Uint8Array | string): string {
  const bytes = bytesOf(data);
  let binary = '';
  // Chunks keep String.fromCharCode's argument count far below the engine's limit.
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

export function decodeBase64(b64: string): Uint8Array {
  const binary = atob(b64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
