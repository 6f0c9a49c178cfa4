// Runs a deployment's install and build commands in a process group of their own, in a scratch
// copy of its sources, with a wall-clock limit and a memory limit (the resident memory of the whole
// group, sampled from /proc, killed past it) and an environment made only of PATH, a scratch HOME
// and the deployment's own variables: none of the server's settings or secrets reach a build.
// The log (stdout and stderr as they come) is kept up to a cap.
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';

const LOG_CAP_BYTES = 1024 * 1024;
const MEMORY_SAMPLE_MS = 100;
const PAGE_BYTES = 4096;

export interface BuildCommand {
  cwd: string;
  home: string;
  installCommand?: string | null;
  buildCommand?: string | null;
  envVars: { key: string; value: string }[];
  timeoutMs: number;
  memoryMb: number;
  /** The PATH the build's shell searches (config: SITES_BUILD_PATH, else the server's PATH). */
  path: string;
  /** Aborted when the server shuts down: the build is stopped. */
  signal?: AbortSignal;
}

export interface BuildOutcome {
  ok: boolean;
  exitCode: number | null;
  /** Why it was stopped, when it was. */
  killedFor?: 'timeout' | 'memory' | 'shutdown';
  durationMs: number;
  log: string;
}

/** The resident bytes of every process of group `pgid` (Linux /proc; 0 elsewhere). */
async function groupResidentBytes(pgid: number): Promise<number> {
  let total = 0;
  let pids: string[];
  try {
    pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name));
  } catch {
    return 0;
  }
  await Promise.all(
    pids.map(async (pid) => {
      try {
        const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
        // Fields after the command name (which may hold spaces and parentheses): state is the 1st.
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        if (Number(fields[2]) === pgid) total += Number(fields[21]) * PAGE_BYTES;
      } catch {
        // The process ended meanwhile.
      }
    }),
  );
  return total;
}

export function runBuild(command: BuildCommand): Promise<BuildOutcome> {
  const steps = [command.installCommand, command.buildCommand].filter((s): s is string => !!s && s.trim() !== '');
  const script = steps.map((s) => `( ${s} )`).join(' && ');
  const env: Record<string, string> = {
    PATH: command.path,
    HOME: command.home,
    TMPDIR: command.home,
    LANG: 'C.UTF-8',
    CI: 'true',
    // Node builds fail with an out-of-memory error of their own before the group limit kills them.
    NODE_OPTIONS: `--max-old-space-size=${Math.max(16, Math.floor(command.memoryMb * 0.75))}`,
  };
  for (const { key, value } of command.envVars) env[key] = value;

  const started = Date.now();
  const chunks: Buffer[] = [];
  let logBytes = 0;
  let dropped = 0;
  const append = (chunk: Buffer) => {
    chunks.push(chunk);
    logBytes += chunk.length;
    // Past the cap the oldest output goes: the end of a failed build says why it failed.
    while (logBytes > LOG_CAP_BYTES && chunks.length > 1) {
      const first = chunks.shift() as Buffer;
      logBytes -= first.length;
      dropped += first.length;
    }
  };
  append(Buffer.from(`$ ${steps.join(' && ')}\n`));

  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', script], {
      cwd: command.cwd,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let killedFor: BuildOutcome['killedFor'];
    const killGroup = (why: NonNullable<BuildOutcome['killedFor']>) => {
      killedFor ??= why;
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    child.stdout.on('data', append);
    child.stderr.on('data', append);
    const timer = setTimeout(() => killGroup('timeout'), command.timeoutMs);
    const onAbort = () => killGroup('shutdown');
    if (command.signal?.aborted) onAbort();
    command.signal?.addEventListener('abort', onAbort, { once: true });
    const limitBytes = command.memoryMb * 1024 * 1024;
    let sampling = false;
    const sampler = setInterval(() => {
      if (sampling || !child.pid) return;
      sampling = true;
      groupResidentBytes(child.pid)
        .then((bytes) => {
          if (bytes > limitBytes) killGroup('memory');
        })
        .finally(() => {
          sampling = false;
        });
    }, MEMORY_SAMPLE_MS);
    let settled = false;
    const settle = (exitCode: number | null, error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearInterval(sampler);
      command.signal?.removeEventListener('abort', onAbort);
      const stoppedFor = killedFor;
      // Whatever the group left running (a daemon a build started) goes with it.
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
      if (error) append(Buffer.from(`\n${error.message}\n`));
      if (stoppedFor === 'timeout') append(Buffer.from(`\nBuild stopped: it ran past ${command.timeoutMs} ms.\n`));
      if (stoppedFor === 'shutdown') append(Buffer.from('\nBuild stopped: the server shut down.\n'));
      if (stoppedFor === 'memory')
        append(Buffer.from(`\nBuild stopped: it used more than ${command.memoryMb} MB of memory.\n`));
      const head = dropped > 0 ? `[${dropped} earlier bytes of output dropped]\n` : '';
      resolve({
        ok: exitCode === 0 && stoppedFor === undefined && error === undefined,
        exitCode,
        killedFor: stoppedFor,
        durationMs: Date.now() - started,
        log: head + Buffer.concat(chunks).toString('utf8'),
      });
    };
    child.once('error', (err) => settle(null, err));
    child.once('close', (code) => settle(code));
  });
}
