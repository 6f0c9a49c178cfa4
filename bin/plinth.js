#!/usr/bin/env node
// The `plinth` command: loads the TypeScript command-line tool through tsx (no build step).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv, process.env);
