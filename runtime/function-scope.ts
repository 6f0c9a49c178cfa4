// What the reference platform puts in every function's scope, as one module: the official client
// (`createClient` and the rest of `@insforge/sdk`) and Deno std's base64 helpers. Bundled with its
// dependencies from node_modules by scripts/bundle-function-scope.mjs at install time, so a
// function never fetches anything to load it; runtime/worker.ts installs these as globals and
// points `import … from 'npm:@insforge/sdk'` at this bundle.
export * from '@insforge/sdk';
export { decodeBase64, encodeBase64 } from './base64.ts';
