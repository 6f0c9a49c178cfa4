// Reads the agent docs: Markdown files in the repository's docs/agents/ folder (the same path from
// src/ under tsx and from dist/ when built).
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const DOCS_DIR = new URL('../../../docs/agents/', import.meta.url);

export const docFilename = (name: string) => `${name}.md`;

export async function readDoc(name: string): Promise<string> {
  return readFile(fileURLToPath(new URL(docFilename(name), DOCS_DIR)), 'utf8');
}
