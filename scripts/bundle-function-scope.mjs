// Install/build step: bundles runtime/function-scope.ts (the official client from node_modules and
// the base64 helpers) into one ES module, runtime/generated/function-scope.js, that the function
// runtime loads from memory. Functions written for the reference platform find `createClient`
// in scope and may import 'npm:@insforge/sdk'; neither needs the network at run time.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const runtimeDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'runtime');
const outfile = path.join(runtimeDir, 'generated', 'function-scope.js');
mkdirSync(path.dirname(outfile), { recursive: true });

const { outputFiles } = await build({
  entryPoints: [path.join(runtimeDir, 'function-scope.ts')],
  outfile,
  write: false,
  bundle: true,
  format: 'esm',
  // Deno workers are a browser-like platform: fetch, WebSocket and Web Crypto are globals.
  platform: 'browser',
  target: 'es2022',
  minify: true,
  legalComments: 'eof',
  // The client reaches for Node's crypto only where Web Crypto is missing (never in Deno).
  external: ['crypto'],
  // Functions have no environment permission: nothing may read process.env.
  define: { 'process.env.NODE_ENV': '"production"' },
  logLevel: 'warning',
});
// Written whole, then renamed: a runtime starting meanwhile never reads half a bundle.
const staging = `${outfile}.${process.pid}.tmp`;
writeFileSync(staging, outputFiles[0].contents);
renameSync(staging, outfile);
console.log(
  `function scope bundled: ${path.relative(process.cwd(), outfile)} (${outputFiles[0].contents.length} bytes)`,
);
