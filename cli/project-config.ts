// Where the tool finds its server, first found wins: the --url/--api-key flags, PLINTH_URL and
// PLINTH_API_KEY from the environment, then from the app folder's .env file, then the project file
// (.plinth/project.json, written by `plinth login`, readable by its owner only, beside a .gitignore
// that keeps the folder out of git).
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CliError } from './cli-error.js';

export interface ServerConfig {
  url: string;
  apiKey: string;
  /** Where the URL and the key came from, e.g. "flags", "environment", ".env and project file". */
  source: string;
}

export const projectFile = (dir: string) => path.join(dir, '.plinth', 'project.json');

async function readProjectFile(dir: string): Promise<{ url?: string; apiKey?: string }> {
  const file = projectFile(dir);
  if (!existsSync(file)) return {};
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as { url?: unknown; apiKey?: unknown };
    return {
      url: typeof parsed.url === 'string' ? parsed.url : undefined,
      apiKey: typeof parsed.apiKey === 'string' ? parsed.apiKey : undefined,
    };
  } catch {
    throw new CliError(`${file} is not valid JSON; run \`plinth login\` again to rewrite it.`);
  }
}

export function normaliseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError(`"${raw}" is not a URL; give the server's base URL, e.g. http://localhost:7130.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CliError(`"${raw}" must be an http:// or https:// URL.`);
  return url.toString().replace(/\/+$/, '');
}

/** PLINTH_URL and PLINTH_API_KEY from a .env file in the folder (KEY=value lines, optional quotes). */
async function readDotEnv(dir: string): Promise<{ url?: string; apiKey?: string }> {
  const file = path.join(dir, '.env');
  if (!existsSync(file)) return {};
  const values: Record<string, string> = {};
  for (const line of (await readFile(file, 'utf8')).split(/\r?\n/)) {
    const match = /^\s*(?:export\s+)?(PLINTH_URL|PLINTH_API_KEY)\s*=\s*(.*?)\s*$/.exec(line);
    if (match) values[match[1]!] = match[2]!.replace(/^(['"])(.*)\1$/, '$2');
  }
  return { url: values.PLINTH_URL || undefined, apiKey: values.PLINTH_API_KEY || undefined };
}

export interface ServerFlags {
  url?: string;
  apiKey?: string;
}

export async function resolveServer(
  dir: string,
  env: Record<string, string | undefined>,
  flags: ServerFlags = {},
): Promise<ServerConfig> {
  const layers: [string, { url?: string; apiKey?: string }][] = [
    ['flags', flags],
    ['environment', { url: env.PLINTH_URL || undefined, apiKey: env.PLINTH_API_KEY || undefined }],
    ['.env', await readDotEnv(dir)],
    ['project file', await readProjectFile(dir)],
  ];
  const urlLayer = layers.find(([, l]) => l.url);
  const keyLayer = layers.find(([, l]) => l.apiKey);
  if (!urlLayer || !keyLayer) {
    throw new CliError(
      'No Plinth server configured. Run `plinth login --url <url> --api-key <key>` or set PLINTH_URL and PLINTH_API_KEY (environment or .env), or pass --url and --api-key.',
    );
  }
  const source = urlLayer[0] === keyLayer[0] ? urlLayer[0] : `${urlLayer[0]} and ${keyLayer[0]}`;
  return { url: normaliseUrl(urlLayer[1].url!), apiKey: keyLayer[1].apiKey!, source };
}

export async function saveProjectFile(dir: string, config: { url: string; apiKey: string }): Promise<string> {
  const file = projectFile(dir);
  const folder = path.dirname(file);
  await mkdir(folder, { recursive: true, mode: 0o700 });
  // The key must never be committed: git ignores everything in the folder, the .gitignore included.
  await writeFile(path.join(folder, '.gitignore'), '# Written by plinth: holds an API key.\n*\n');
  await writeFile(file, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  // writeFile's mode applies only when it creates the file: an existing one keeps its own otherwise.
  await chmod(file, 0o600);
  return file;
}

export const maskKey = (key: string) => (key.length > 10 ? `${key.slice(0, 6)}…${key.slice(-4)}` : '****');
