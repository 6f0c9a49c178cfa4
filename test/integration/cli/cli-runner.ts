// Runs the real `plinth` binary (cli/bin/plinth.js) as a child process in a project directory, and
// makes temporary project directories with migration files in them.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../../cli/bin/plinth.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment without any PLINTH_ setting of the machine running the tests. */
function cleanEnv(extra: Record<string, string>): Record<string, string> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k, v]) => !k.startsWith('PLINTH_') && v !== undefined),
  ) as Record<string, string>;
  return { ...env, ...extra };
}

/** A long-running command (e.g. `logs tail`): its output so far, and a wait for some text in it. */
export function spawnCli(cwd: string, args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const waiters: (() => void)[] = [];
  const wake = () => {
    for (const waiter of waiters.splice(0)) waiter();
  };
  child.stdout.on('data', (d) => {
    stdout += d;
    wake();
  });
  child.stderr.on('data', (d) => {
    stderr += d;
    wake();
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return {
    child,
    exited,
    output: () => ({ stdout, stderr }),
    /** Resolves once stdout or stderr (as chosen) contains the text. */
    async waitFor(stream: 'stdout' | 'stderr', text: string): Promise<void> {
      while (!(stream === 'stdout' ? stdout : stderr).includes(text)) await new Promise<void>((r) => waiters.push(r));
    },
  };
}

export function runCli(cwd: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd,
      env: cleanEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A temporary project directory holding the given files under migrations/. */
export async function projectDir(files: Record<string, string> = {}): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'plinth-cli-'));
  if (Object.keys(files).length > 0) await mkdir(path.join(dir, 'migrations'));
  for (const [name, content] of Object.entries(files)) await writeFile(path.join(dir, 'migrations', name), content);
  return dir;
}
