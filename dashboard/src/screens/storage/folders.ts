// A flat listing of keys seen as a folder: the sub-folders (the next path segment of deeper
// keys) and the files that sit directly in it.
import type { StoredObject } from './types';

export interface FolderView {
  /** Sub-folder prefixes, e.g. "photos/2026/" under "photos/", sorted. */
  folders: string[];
  files: StoredObject[];
}

export function folderView(objects: StoredObject[], prefix: string): FolderView {
  const folders = new Set<string>();
  const files: StoredObject[] = [];
  for (const object of objects) {
    if (!object.key.startsWith(prefix)) continue;
    const below = object.key.slice(prefix.length);
    const slash = below.indexOf('/');
    if (slash >= 0) folders.add(`${prefix}${below.slice(0, slash + 1)}`);
    else files.push(object);
  }
  return { folders: [...folders].sort(), files };
}

/** The last segment of a key or prefix: "a/b/c.txt" → "c.txt", "a/b/" → "b". */
export const nameOf = (keyOrPrefix: string) => keyOrPrefix.replace(/\/$/, '').split('/').pop() ?? keyOrPrefix;
