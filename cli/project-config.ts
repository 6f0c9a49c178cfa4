// Where the tool finds its server: PLINTH_URL and PLINTH_API_KEY from the environment win over
// the project file (.plinth/project.json, written by `plinth login`, readable by its owner only).
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CliError } from './cli-error.js';

export interface ServerConfig {
  url: string;
  apiKey: string;
  source: 'environment' | 'project file' | 'environment and project file';
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

export async function resolveServer(dir: string, env: Record<string, string | undefined>): Promise<ServerConfig> {
  const saved = await readProjectFile(dir);
  const envUrl = env.PLINTH_URL || undefined;
  const envKey = env.PLINTH_API_KEY || undefined;
  const url = envUrl ?? saved.url;
  const apiKey = envKey ?? saved.apiKey;
  if (!url || !apiKey) {
    throw new CliError(
      'No Plinth server configured. Run `plinth login --url <url> --api-key <key>` or set PLINTH_URL and PLINTH_API_KEY.',
    );
  }
  const fromEnv = Boolean(envUrl || envKey);
  const fromFile = (!envUrl && saved.url) || (!envKey && saved.apiKey);
  const source = fromEnv && fromFile ? 'environment and project file' : fromEnv ? 'environment' : 'project file';
  return { url: normaliseUrl(url), apiKey, source };
}

export async function saveProjectFile(dir: string, config: { url: string; apiKey: string }): Promise<string> {
  const file = projectFile(dir);
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  return file;
}

export const maskKey = (key: string) => (key.length > 10 ? `${key.slice(0, 6)}…${key.slice(-4)}` : '****');
