// Install/build step: compiles the `plinth` command-line tool (cli/main.ts and the few src/ files
// it shares with the server) into cli/dist/ (ES modules with source maps). Everything but the SQL
// parser (a WebAssembly package) is bundled in, so the cli/ package installs with one dependency;
// commands load on first use (code splitting), which keeps `plinth --help` fast.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'cli', 'dist');

await rm(outdir, { recursive: true, force: true });
await build({
  entryPoints: { cli: path.join(root, 'cli', 'main.ts') },
  outdir,
  bundle: true,
  splitting: true,
  external: ['libpg-query'],
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  // Bundled CommonJS packages (commander) require Node's built-ins: give the ES modules a require.
  banner: {
    js: "import { createRequire as __plinthRequire } from 'node:module'; const require = __plinthRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
console.log(`command-line tool compiled: ${path.relative(process.cwd(), path.join(outdir, 'cli.js'))}`);
