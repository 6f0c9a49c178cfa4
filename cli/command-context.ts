// What every command is given: where it runs, how it prints and asks, the global flags and the
// API client (resolved on first use).
import type { ApiClient } from './api-client.js';

export interface GlobalFlags {
  url?: string;
  apiKey?: string;
  json?: boolean;
}

export interface CommandContext {
  cwd: string;
  env: Record<string, string | undefined>;
  now(): Date;
  out(line: string): void;
  /** Progress and prompts: stderr, so stdout stays the command's answer. */
  err(text: string): void;
  /** Whether stdin is a terminal a question can be asked on. */
  interactive: boolean;
  /** A line typed by the user (only when interactive). */
  ask(question: string): Promise<string>;
  /** The global flags of the command being run. */
  flags: GlobalFlags;
  /** The API client for the configured server (resolved when a command first needs it). */
  api(): Promise<ApiClient>;
}
