// `plinth sites deploy [dir]|list|rollback [id]|logs <id>`: the site (the app's front end) hosted by
// Plinth. deploy hashes every file (SHA-1), sends the manifest, uploads only the files the server
// does not hold yet (one progress bar over them), starts the deployment — as is, or built on the
// server with --build — and waits for it to be live.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import type { CommandContext } from '../command-context.js';
import { emit, objectTable, say } from '../output.js';
import { progressStream } from '../progress.js';

/** Never sent: dependencies, version control, local secrets (as the reference's agent tools skip them). */
const SKIPPED = new Set(['node_modules', '.git', '.insforge', '.plinth']);
const isSecretFile = (name: string) => name === '.env' || name.startsWith('.env.');
const POLL_MS = 1_000;

interface LocalFile {
  absolute: string;
  path: string;
  sha: string;
  size: number;
}

interface Deployment {
  id: string;
  status: string;
  url: string | null;
  live: boolean;
  createdAt: string;
  metadata: Record<string, unknown> | null;
}

async function hashFile(file: string): Promise<{ sha: string; size: number }> {
  const hash = createHash('sha1');
  let size = 0;
  for await (const chunk of createReadStream(file)) {
    size += (chunk as Buffer).length;
    hash.update(chunk as Buffer);
  }
  return { sha: hash.digest('hex'), size };
}

async function collect(root: string): Promise<LocalFile[]> {
  const files: LocalFile[] = [];
  const walk = async (dir: string, prefix: string) => {
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (SKIPPED.has(entry.name) || isSecretFile(entry.name)) continue;
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      const absolute = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(absolute, rel);
      else if (entry.isFile()) files.push({ absolute, path: rel, ...(await hashFile(absolute)) });
    }
  };
  await walk(root, '');
  return files;
}

const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

export function registerSites(program: Command, ctx: CommandContext): void {
  const sites = program
    .command('sites')
    .description("the app's front end, hosted by Plinth: deploy, list, rollback, logs");

  sites
    .command('deploy')
    .description('upload a folder (only files the server lacks) and make it the live site')
    .argument('[dir]', 'the folder to deploy (a built site, or sources with --build)', '.')
    .option('--build <command>', 'build on the server with this command (e.g. "npm run build")')
    .option('--install <command>', 'run this before the build (e.g. "npm ci")')
    .option('--output <dir>', 'the folder to serve (default: the upload; after a build: dist, build, out or public)')
    .option('--root <dir>', 'the folder inside the upload to build in')
    .option('--env <KEY=VALUE...>', 'a variable of the build (repeatable)')
    .option('--no-wait', 'do not wait for a build to end')
    .action(
      async (
        dir: string,
        options: { build?: string; install?: string; output?: string; root?: string; env?: string[]; wait: boolean },
      ) => {
        const root = path.resolve(ctx.cwd, dir);
        const info = await stat(root).catch(() => null);
        if (!info?.isDirectory()) throw new CliError(`No folder ${dir}.`);
        const files = await collect(root);
        if (files.length === 0) throw new CliError(`${dir} holds no file to deploy.`);
        const envVars = (options.env ?? []).map((pair) => {
          const at = pair.indexOf('=');
          if (at <= 0) throw new CliError(`--env ${pair}: write KEY=VALUE.`);
          return { key: pair.slice(0, at), value: pair.slice(at + 1) };
        });
        const api = await ctx.api();
        const created = await api.call<{ id: string; files: { path: string; fileId: string; size: number }[] }>(
          'POST',
          '/api/deployments/direct',
          { json: { files: files.map(({ path: p, sha, size }) => ({ path: p, sha, size })) } },
        );
        const asked = created.files;
        const total = asked.reduce((sum, f) => sum + f.size, 0);
        say(ctx, `Uploading ${asked.length} of ${files.length} files (${mb(total)}); the server holds the rest.`);
        // One bar over every byte sent: each file's stream taps into it.
        const bar = progressStream(
          'upload',
          total,
          (text) => (ctx.flags.json ? undefined : ctx.err(text)),
          Boolean(process.stderr.isTTY) && !ctx.flags.json,
        );
        bar.resume();
        const byPath = new Map(files.map((f) => [f.path, f]));
        for (const file of asked) {
          const local = byPath.get(file.path);
          if (!local) throw new CliError(`The server asked for ${file.path}, which was not in the manifest.`);
          const tap = new Transform({
            transform(chunk: Buffer, _enc, done) {
              bar.write(chunk);
              done(null, chunk);
            },
          });
          await api.call('PUT', `/api/deployments/${created.id}/files/${file.fileId}/content`, {
            body: Readable.toWeb(createReadStream(local.absolute).pipe(tap)) as ReadableStream,
            headers: { 'content-type': 'application/octet-stream', 'content-length': String(local.size) },
          });
        }
        bar.end();
        const projectSettings = {
          ...(options.build ? { buildCommand: options.build } : {}),
          ...(options.install ? { installCommand: options.install } : {}),
          ...(options.output ? { outputDirectory: options.output } : {}),
          ...(options.root ? { rootDirectory: options.root } : {}),
        };
        let deployment = await api.call<Deployment>('POST', `/api/deployments/${created.id}/start`, {
          json: { projectSettings, envVars, meta: { source: 'plinth-cli' } },
        });
        if ((deployment.status === 'QUEUED' || deployment.status === 'BUILDING') && options.wait) {
          say(ctx, `Building ${deployment.id} on the server…`);
          while (deployment.status === 'BUILDING' || deployment.status === 'QUEUED') {
            await new Promise((resolve) => setTimeout(resolve, POLL_MS));
            deployment = await api.call<Deployment>('GET', `/api/deployments/${deployment.id}`);
          }
        }
        if (deployment.status === 'ERROR') {
          const { log } = await api.call<{ log: string | null }>('GET', `/api/deployments/${deployment.id}/logs`);
          const tail = (log ?? '').trimEnd().split('\n').slice(-20).join('\n');
          throw new CliError(
            `Deployment ${deployment.id} failed: ${String(deployment.metadata?.error ?? 'see its log')}${tail ? `\n${tail}` : ''}`,
            { nextActions: `plinth sites logs ${deployment.id}` },
          );
        }
        emit(ctx, deployment, () => [
          deployment.status === 'READY'
            ? `Deployed ${deployment.id}${deployment.live ? ' (live)' : ''}: ${deployment.url}`
            : `Deployment ${deployment.id} is ${deployment.status}: plinth sites list shows when it is live.`,
        ]);
      },
    );

  sites
    .command('list')
    .description('deployments, newest first; the live one is marked')
    .action(async () => {
      const api = await ctx.api();
      const list = await api.call<Deployment[]>('GET', '/api/deployments', { query: { limit: 100 } });
      emit(ctx, list, () =>
        list.length === 0
          ? ['No deployments.']
          : objectTable(
              list.map((d) => ({ ...d, live: d.live ? '*' : '' })),
              ['id', 'status', 'live', 'createdAt', 'url'],
            ),
      );
    });

  sites
    .command('rollback')
    .description('make an earlier deployment live again (default: the one before the live one)')
    .argument('[id]', 'the deployment to make live')
    .action(async (id: string | undefined) => {
      const api = await ctx.api();
      let target = id;
      if (!target) {
        const list = await api.call<Deployment[]>('GET', '/api/deployments', { query: { limit: 1000 } });
        const liveAt = list.findIndex((d) => d.live);
        target = list.slice(liveAt + 1).find((d) => d.status === 'READY')?.id;
        if (!target)
          throw new CliError('No READY deployment older than the live one.', { nextActions: 'plinth sites list' });
      }
      const deployment = await api.call<Deployment>('POST', `/api/deployments/${target}/promote`);
      emit(ctx, deployment, () => [`Live: ${deployment.id} (${deployment.url})`]);
    });

  sites
    .command('logs')
    .description("a deployment's build log")
    .argument('<id>')
    .action(async (id: string) => {
      const api = await ctx.api();
      const logs = await api.call<{ log: string | null }>('GET', `/api/deployments/${id}/logs`);
      emit(ctx, logs, () => [logs.log ?? 'No build log (the deployment was published as uploaded).']);
    });
}
