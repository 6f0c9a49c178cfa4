// Saving an answer of the API as a file: the bytes go through the authenticated client (the
// access token is not a cookie), then an object URL hands them to the browser's download.
import type { ApiClient } from '../../api/client';

function fileNameOf(res: Response, fallback: string): string {
  const disposition = res.headers.get('content-disposition') ?? '';
  const match = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition);
  return match?.[1] ? decodeURIComponent(match[1]) : fallback;
}

export async function downloadFile(api: ApiClient, path: string, fallbackName: string): Promise<void> {
  const res = await api.request(path);
  const url = URL.createObjectURL(await res.blob());
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = fileNameOf(res, fallbackName);
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
