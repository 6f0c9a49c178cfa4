// SQL for listing one level of a bucket as folders and files (the Supabase storage listing), in the
// caller's scope so row-level security decides which objects, and so which folders, appear.
import type { Queryable } from '../../core/db.js';
import { likePrefix } from './storage.repo.js';

export type FolderSortColumn = 'name' | 'created_at' | 'updated_at';

export interface FolderQuery {
  /** '' or a folder path ending with '/'. */
  folder: string;
  /** A case-insensitive prefix of the entries' names. */
  search: string;
  sortBy: FolderSortColumn;
  order: 'asc' | 'desc';
  limit: number;
  offset: number;
}

/** A folder (id null, no size) or a file, named relative to the folder listed. */
export interface FolderEntry {
  name: string;
  id: string | null;
  size: string | null;
  mime_type: string | null;
  etag: string | null;
  cache_control: string | null;
  created_at: Date | null;
  updated_at: Date | null;
}

export async function listFolder(db: Queryable, bucket: string, q: FolderQuery): Promise<FolderEntry[]> {
  return db<FolderEntry[]>`
    with matches as (
      select substr(key, char_length(${q.folder}) + 1) as rest, id, size, mime_type, etag, cache_control, created_at, updated_at
      from storage.objects
      where bucket = ${bucket} and key like ${likePrefix(q.folder)}
        and substr(key, char_length(${q.folder}) + 1) ilike ${likePrefix(q.search)}
    ), entries as (
      select split_part(rest, '/', 1) as name, null::uuid as id, null::bigint as size, null::text as mime_type,
        null::text as etag, null::text as cache_control, null::timestamptz as created_at, null::timestamptz as updated_at
      from matches where strpos(rest, '/') > 0 group by 1
      union all
      select rest, id, size, mime_type, etag, cache_control, created_at, updated_at
      from matches where strpos(rest, '/') = 0
    )
    select * from entries
    order by ${db(q.sortBy)} ${q.order === 'desc' ? db`desc nulls last` : db`asc nulls first`}, name collate "C"
    limit ${q.limit} offset ${q.offset}`;
}
