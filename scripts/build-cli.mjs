// Install/build step: compiles the `plinth` command-line tool (cli/main.ts and the few src/ files
// it shares with the server) into one ES module, dist/cli.js, with a source map. bin/plinth.js
// runs it with plain node: the installed CLI needs no TypeScript loader. Packages stay external.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const outfile = path.join(root, 'dist', 'cli.js');

await build({
  entryPoints: [path.join(root, 'cli', 'main.ts')],
  outfile,
  bundle: true,
  packages: 'external',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
});
console.log(`command-line tool compiled: ${path.relative(process.cwd(), outfile)}`);
