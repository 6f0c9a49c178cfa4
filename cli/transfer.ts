// Files to and from the server as raw bodies, with the progress bar over 1 MB: a local file sent
// as a request body, and a response body saved to a local file.
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ApiClient, RequestOptions } from './api-client.js';
import { CliError } from './cli-error.js';
import type { CommandContext } from './command-context.js';
import { progressStream } from './progress.js';

function bar(ctx: CommandContext, label: string, size: number) {
  const tty = Boolean(process.stderr.isTTY) && !ctx.flags.json;
  return progressStream(label, size, (text) => (ctx.flags.json ? undefined : ctx.err(text)), tty);
}

/** Sends the local file `name` (relative to the working directory) as the body; the JSON answer and the size. */
export async function sendFile<T>(
  ctx: CommandContext,
  api: ApiClient,
  request: { method: string; path: string; name: string; contentType: string; query?: RequestOptions['query'] },
): Promise<{ answer: T; size: number }> {
  const file = path.resolve(ctx.cwd, request.name);
  const size = (
    await stat(file).catch(() => {
      throw new CliError(`No file ${request.name}.`);
    })
  ).size;
  const body = Readable.toWeb(createReadStream(file).pipe(bar(ctx, 'upload', size))) as ReadableStream;
  const answer = await api.call<T>(request.method, request.path, {
    body,
    query: request.query,
    headers: { 'content-type': request.contentType, 'content-length': String(size) },
  });
  return { answer, size };
}

/** Saves a successful response's body to the local file `name`; its path and size. */
export async function saveBody(
  ctx: CommandContext,
  res: Response,
  name: string,
): Promise<{ file: string; size: number }> {
  const size = Number(res.headers.get('content-length') ?? 0);
  const file = path.resolve(ctx.cwd, name);
  await pipeline(
    Readable.fromWeb(res.body as import('node:stream/web').ReadableStream),
    bar(ctx, 'download', size),
    createWriteStream(file),
  );
  return { file, size };
}
