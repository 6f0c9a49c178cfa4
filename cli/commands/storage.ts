// `plinth storage mb|rb|ls|cp|rm`: buckets and objects. Remote paths are written ss://<bucket>/<key>;
// cp uploads (local → remote) or downloads (remote → local), with a progress bar over 1 MB.
import path from 'node:path';
import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import type { CommandContext } from '../command-context.js';
import { emit, objectTable } from '../output.js';
import { saveBody, sendFile } from '../transfer.js';

const SCHEME = 'ss://';

interface RemotePath {
  bucket: string;
  key: string;
}

function parseRemote(value: string): RemotePath | undefined {
  if (!value.startsWith(SCHEME)) return undefined;
  const [bucket = '', ...rest] = value.slice(SCHEME.length).split('/');
  if (!bucket) throw new CliError(`"${value}" names no bucket: write ${SCHEME}<bucket>/<key>.`);
  return { bucket, key: rest.join('/') };
}

/** A bucket argument, with or without the scheme; a key after it is a mistake, not ignored. */
function bucketOf(value: string): RemotePath {
  const remote = parseRemote(value) ?? parseRemote(`${SCHEME}${value}`)!;
  if (remote.key) throw new CliError(`"${value}" names an object, not a bucket: write ${SCHEME}<bucket>.`);
  return remote;
}

const objectPath = ({ bucket, key }: RemotePath) =>
  `/api/storage/buckets/${encodeURIComponent(bucket)}/objects/${key.split('/').map(encodeURIComponent).join('/')}`;

export function registerStorage(program: Command, ctx: CommandContext): void {
  const storage = program
    .command('storage')
    .description(`buckets and objects: mb, rb, ls, cp, rm (remote paths are ${SCHEME}<bucket>/<key>)`);

  storage
    .command('mb')
    .description(`make a bucket: ${SCHEME}<bucket> (private unless --public)`)
    .argument('<bucket>', `${SCHEME}<bucket>`)
    .option('--public', 'anyone may download its objects without a credential')
    .action(async (target: string, options: { public?: boolean }) => {
      const { bucket } = bucketOf(target);
      const api = await ctx.api();
      const created = await api.call<Record<string, unknown>>('POST', '/api/storage/buckets', {
        json: { bucketName: bucket, isPublic: Boolean(options.public) },
      });
      emit(ctx, created, () => [`Made ${options.public ? 'public' : 'private'} bucket ${SCHEME}${bucket}.`]);
    });

  storage
    .command('rb')
    .description(`remove a bucket and every object in it: ${SCHEME}<bucket>`)
    .argument('<bucket>', `${SCHEME}<bucket>`)
    .action(async (target: string) => {
      const { bucket } = bucketOf(target);
      const api = await ctx.api();
      await api.call('DELETE', `/api/storage/buckets/${encodeURIComponent(bucket)}`);
      emit(ctx, { removed: bucket }, () => [`Removed bucket ${SCHEME}${bucket}.`]);
    });

  storage
    .command('ls')
    .description(`list buckets, or the objects of ${SCHEME}<bucket>[/<prefix>]`)
    .argument('[path]', `${SCHEME}<bucket>[/<prefix>]`)
    .action(async (target: string | undefined) => {
      const api = await ctx.api();
      if (!target) {
        const buckets = await api.call<Record<string, unknown>[]>('GET', '/api/storage/buckets');
        emit(ctx, buckets, () =>
          buckets.length === 0 ? ['No buckets.'] : objectTable(buckets, ['name', 'public', 'createdAt']),
        );
        return;
      }
      const remote = parseRemote(target) ?? parseRemote(`${SCHEME}${target}`)!;
      const { data } = await api.call<{ data: Record<string, unknown>[] }>(
        'GET',
        `/api/storage/buckets/${encodeURIComponent(remote.bucket)}/objects`,
        { query: { prefix: remote.key || undefined, limit: 1000 } },
      );
      emit(ctx, data, () =>
        data.length === 0 ? ['No objects.'] : objectTable(data, ['key', 'size', 'mimeType', 'uploadedAt']),
      );
    });

  storage
    .command('cp')
    .description(`upload (local → ${SCHEME}bucket/key) or download (${SCHEME}bucket/key → local)`)
    .argument('<from>')
    .argument('<to>')
    .action(async (from: string, to: string) => {
      const [source, target] = [parseRemote(from), parseRemote(to)];
      if (Boolean(source) === Boolean(target))
        throw new CliError(`Give one local path and one ${SCHEME}<bucket>/<key> path (upload or download).`);
      const api = await ctx.api();
      if (target) {
        const remote = {
          bucket: target.bucket,
          key: target.key.endsWith('/') || !target.key ? `${target.key}${path.basename(from)}` : target.key,
        };
        const { answer, size } = await sendFile<Record<string, unknown>>(ctx, api, {
          method: 'PUT',
          path: objectPath(remote),
          name: from,
          contentType: 'application/octet-stream',
        });
        emit(ctx, answer, () => [`Uploaded ${from} to ${SCHEME}${remote.bucket}/${remote.key} (${size} bytes).`]);
        return;
      }
      const { file, size } = await saveBody(ctx, await api.send('GET', objectPath(source!)), to);
      emit(ctx, { bucket: source!.bucket, key: source!.key, file, size }, () => [
        `Downloaded ${from} to ${to} (${size} bytes).`,
      ]);
    });

  storage
    .command('rm')
    .description('delete objects')
    .argument('<paths...>', `${SCHEME}<bucket>/<key> …`)
    .action(async (paths: string[]) => {
      const api = await ctx.api();
      const removed: string[] = [];
      for (const value of paths) {
        const remote = parseRemote(value);
        if (!remote?.key) throw new CliError(`"${value}" is not an object path: write ${SCHEME}<bucket>/<key>.`);
        await api.call('DELETE', objectPath(remote));
        removed.push(value);
      }
      emit(ctx, { removed }, () => removed.map((value) => `Deleted ${value}`));
    });
}
