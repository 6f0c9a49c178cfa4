// The data the scenarios need: users registered through Plinth's API, and many live sessions
// whose refresh tokens are written to a file for the load generator (one token, one refresh).
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import postgres from 'postgres';

export interface BenchUser {
  id: string;
  email: string;
  password: string;
  accessToken: string;
}

/** Registers a user as a mobile client would (one argon2 hash each). */
export async function registerUser(baseUrl: string, email: string, password: string): Promise<BenchUser> {
  const res = await fetch(`${baseUrl}/api/auth/users?client_type=mobile`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  const body = (await res.json()) as { user?: { id: string }; accessToken?: string };
  if (res.status !== 200 || !body.user || !body.accessToken) {
    throw new Error(`registering ${email} failed: ${res.status} ${JSON.stringify(body)}`);
  }
  return { id: body.user.id, email, password, accessToken: body.accessToken };
}

const BATCH = 10_000;

/**
 * Starts `count` sessions spread over `userIds` with auth.start_session (the statement Plinth's
 * sign-in uses, batched), each with a random refresh token stored as its SHA-256, and writes
 * the tokens to `file`, one a line.
 */
export async function createRefreshTokens(
  databaseUrl: string,
  userIds: string[],
  count: number,
  ttlSeconds: number,
  file: string,
): Promise<void> {
  const sql = postgres(databaseUrl, { max: 4, onnotice: () => {} });
  const tokens: string[] = [];
  try {
    const batches: Promise<unknown>[] = [];
    for (let start = 0; start < count; start += BATCH) {
      const ids: string[] = [];
      const owners: string[] = [];
      const hashes: string[] = [];
      for (let i = start; i < Math.min(count, start + BATCH); i++) {
        const token = randomBytes(32).toString('base64url');
        tokens.push(token);
        ids.push(randomUUID());
        owners.push(userIds[i % userIds.length]!);
        hashes.push(createHash('sha256').update(token).digest('hex'));
      }
      batches.push(sql`
        select count(auth.start_session(s.id, s.owner, null, decode(s.hash, 'hex'), now(), make_interval(secs => ${ttlSeconds})))
        from unnest(${ids}::uuid[], ${owners}::uuid[], ${hashes}::text[]) as s(id, owner, hash)`);
    }
    await Promise.all(batches);
    await sql`vacuum analyze auth.sessions, auth.refresh_tokens`;
  } finally {
    await sql.end({ timeout: 5 });
  }
  await writeFile(file, tokens.join('\n'));
}

/** The argon2 hash Plinth stored for a user's password. */
export async function storedPasswordHash(databaseUrl: string, email: string): Promise<string> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<
      { passwordHash: string }[]
    >`select password_hash as "passwordHash" from auth.users where email = ${email}`;
    if (!row) throw new Error(`no stored password for ${email}`);
    return row.passwordHash;
  } finally {
    await sql.end({ timeout: 5 });
  }
}
