// Node side of the function scope: reads the bundle of runtime/function-scope.ts (the official
// client and base64 helpers that functions written for the reference platform expect) and hands it
// to the Deno runtime, which holds it in memory: functions load it without file or network access.
// `npm run build` (and so `npm install`) writes it; a checkout that has not run the build since
// gets it bundled here once, so such functions never fail for a stale tree.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** runtime/generated/function-scope.js, written by scripts/bundle-function-scope.mjs. */
export function readFunctionScope(
  runtimeDir: string,
  log: (level: 'warn' | 'error', message: string, extra?: Record<string, unknown>) => void,
): string | null {
  const file = path.join(runtimeDir, 'generated', 'function-scope.js');
  if (!existsSync(file)) {
    log('warn', 'the function scope bundle is missing; bundling it now (npm run build writes it)');
    try {
      execFileSync(process.execPath, [path.join(runtimeDir, '..', 'scripts', 'bundle-function-scope.mjs')], {
        stdio: 'ignore',
      });
    } catch (err) {
      log('error', 'the function scope could not be bundled: createClient is unavailable to functions', { err });
      return null;
    }
  }
  return readFileSync(file, 'utf8');
}
