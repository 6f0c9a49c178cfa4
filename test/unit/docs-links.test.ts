// Every relative link in README.md and docs/**/*.md points at a file of the repository, and every
// #anchor at a heading of its page (GitHub's heading ids). No network: web links are not followed.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(full);
    return entry.name.endsWith('.md') ? [full] : [];
  });
}

/** The page without fenced code blocks and inline code, where brackets are not links. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's id of a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function headingIds(markdown: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  const withoutCode = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const [, text] of withoutCode.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = text!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/[`*_]/g, (c) => (c === '_' ? '_' : ''))
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.add(n === 0 ? base : `${base}-${n}`);
  }
  return ids;
}

interface Link {
  file: string;
  target: string;
}

function relativeLinks(file: string): Link[] {
  const text = prose(readFileSync(file, 'utf8'));
  const links: Link[] = [];
  for (const [, target] of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue; // http:, https:, mailto:
    links.push({ file, target: target! });
  }
  return links;
}

function problemOf({ file, target }: Link): string | undefined {
  const [pathPart, anchor] = target.split('#') as [string, string | undefined];
  const resolved = pathPart === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(pathPart));
  if (!resolved.startsWith(ROOT)) return 'points outside the repository';
  if (!existsSync(resolved)) return 'no such file';
  if (anchor === undefined) return undefined;
  if (statSync(resolved).isDirectory() || !resolved.endsWith('.md'))
    return 'an anchor into something other than a page';
  return headingIds(readFileSync(resolved, 'utf8')).has(anchor) ? undefined : `no heading #${anchor}`;
}

const pages = [path.join(ROOT, 'README.md'), ...markdownFiles(path.join(ROOT, 'docs'))];

describe('links in the docs', () => {
  it('finds the pages and their links', () => {
    expect(pages.length).toBeGreaterThan(20);
    expect(pages.flatMap(relativeLinks).length).toBeGreaterThan(100);
  });

  it('every relative link and anchor resolves', () => {
    const broken = pages
      .flatMap(relativeLinks)
      .map((link) => ({ link, problem: problemOf(link) }))
      .filter((b) => b.problem !== undefined)
      .map(({ link, problem }) => `${path.relative(ROOT, link.file)}: (${link.target}) ${problem}`);
    expect(broken).toEqual([]);
  });

  it('computes heading ids as GitHub does', () => {
    const ids = headingIds(
      '# Plinth\n## Sessions, passwords, email\n## `plinth` CLI\n## Plinth\n```\n# not a heading\n```',
    );
    expect([...ids]).toEqual(['plinth', 'sessions-passwords-email', 'plinth-cli', 'plinth-1']);
  });

  it('reports a missing page and a missing heading', () => {
    const readme = path.join(ROOT, 'README.md');
    expect(problemOf({ file: readme, target: 'docs/no-such-page.md' })).toBe('no such file');
    expect(problemOf({ file: readme, target: 'docs/getting-started.md#no-such-heading' })).toBe(
      'no heading #no-such-heading',
    );
  });
});
