#!/usr/bin/env node
// The `plinth` command: runs the compiled command-line tool (cli/dist/cli.js, built by
// scripts/build-cli.mjs from cli/), with source maps so errors point at the TypeScript.
process.setSourceMapsEnabled(true);
const { main } = await import('../dist/cli.js');
process.exitCode = await main(process.argv, process.env);
