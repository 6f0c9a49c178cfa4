// SQL for auth.oauth_configs (built-in providers) and auth.custom_oauth_configs (custom OIDC).
import type { Queryable } from '../../core/db.js';
import type { BuiltInProvider } from './providers.js';

const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

export interface StoredOAuthConfig {
  provider: BuiltInProvider;
  clientId: string;
  clientSecretCiphertext: string | null;
  scopes: string[] | null;
  redirectUri: string | null;
  nativeClientIds: string[];
  authorizationUrl: string | null;
  tokenUrl: string | null;
  userinfoUrl: string | null;
  jwksUrl: string | null;
  issuer: string | null;
  createdAt: string;
  updatedAt: string;
}

const builtInColumns = {
  clientId: 'client_id',
  clientSecretCiphertext: 'client_secret_ciphertext',
  scopes: 'scopes',
  redirectUri: 'redirect_uri',
  nativeClientIds: 'native_client_ids',
  authorizationUrl: 'authorization_url',
  tokenUrl: 'token_url',
  userinfoUrl: 'userinfo_url',
  jwksUrl: 'jwks_url',
  issuer: 'issuer',
} as const;

export type OAuthConfigChanges = Partial<Pick<StoredOAuthConfig, keyof typeof builtInColumns>>;

const selectBuiltIn = (db: Queryable) =>
  db.unsafe(
    [
      'provider',
      ...Object.entries(builtInColumns).map(([field, column]) => `${column} as "${field}"`),
      `${iso('created_at')} as "createdAt"`,
      `${iso('updated_at')} as "updatedAt"`,
    ].join(', '),
  );

const toColumns = (changes: Record<string, unknown>, columns: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(changes)
      .filter(([field, value]) => value !== undefined && field in columns)
      .map(([field, value]) => [columns[field]!, value]),
  );

export async function listOAuthConfigs(db: Queryable): Promise<StoredOAuthConfig[]> {
  return db<StoredOAuthConfig[]>`select ${selectBuiltIn(db)} from auth.oauth_configs order by provider`;
}

export async function findOAuthConfig(db: Queryable, provider: string): Promise<StoredOAuthConfig | undefined> {
  const [row] = await db<
    StoredOAuthConfig[]
  >`select ${selectBuiltIn(db)} from auth.oauth_configs where provider = ${provider}`;
  return row;
}

/** Inserts a provider's settings; undefined when it is configured already. */
export async function insertOAuthConfig(db: Queryable, provider: BuiltInProvider, values: OAuthConfigChanges) {
  const [row] = await db<StoredOAuthConfig[]>`
    insert into auth.oauth_configs ${db({ provider, ...toColumns(values, builtInColumns) } as never)}
    on conflict (provider) do nothing
    returning ${selectBuiltIn(db)}`;
  return row;
}

export async function updateOAuthConfig(db: Queryable, provider: string, changes: OAuthConfigChanges, now: Date) {
  const [row] = await db<StoredOAuthConfig[]>`
    update auth.oauth_configs set ${db({ ...toColumns(changes, builtInColumns), updated_at: now } as never)}
    where provider = ${provider}
    returning ${selectBuiltIn(db)}`;
  return row;
}

export async function deleteOAuthConfig(db: Queryable, provider: string): Promise<boolean> {
  return (await db`delete from auth.oauth_configs where provider = ${provider}`).count > 0;
}

export interface StoredCustomConfig {
  key: string;
  name: string;
  discoveryEndpoint: string;
  clientId: string;
  clientSecretCiphertext: string;
  scopes: string[] | null;
  createdAt: string;
  updatedAt: string;
}

const customColumns = {
  name: 'name',
  discoveryEndpoint: 'discovery_endpoint',
  clientId: 'client_id',
  clientSecretCiphertext: 'client_secret_ciphertext',
  scopes: 'scopes',
} as const;

export type CustomConfigChanges = Partial<Pick<StoredCustomConfig, keyof typeof customColumns>>;

const selectCustom = (db: Queryable) =>
  db.unsafe(
    [
      'key',
      ...Object.entries(customColumns).map(([field, column]) => `${column} as "${field}"`),
      `${iso('created_at')} as "createdAt"`,
      `${iso('updated_at')} as "updatedAt"`,
    ].join(', '),
  );

export async function listCustomConfigs(db: Queryable): Promise<StoredCustomConfig[]> {
  return db<StoredCustomConfig[]>`select ${selectCustom(db)} from auth.custom_oauth_configs order by key`;
}

export async function findCustomConfig(db: Queryable, key: string): Promise<StoredCustomConfig | undefined> {
  const [row] = await db<
    StoredCustomConfig[]
  >`select ${selectCustom(db)} from auth.custom_oauth_configs where key = ${key}`;
  return row;
}

export async function insertCustomConfig(
  db: Queryable,
  key: string,
  values: Required<Omit<CustomConfigChanges, 'scopes'>> & CustomConfigChanges,
) {
  const [row] = await db<StoredCustomConfig[]>`
    insert into auth.custom_oauth_configs ${db({ key, ...toColumns(values, customColumns) } as never)}
    on conflict (key) do nothing
    returning ${selectCustom(db)}`;
  return row;
}

export async function updateCustomConfig(db: Queryable, key: string, changes: CustomConfigChanges, now: Date) {
  const [row] = await db<StoredCustomConfig[]>`
    update auth.custom_oauth_configs set ${db({ ...toColumns(changes, customColumns), updated_at: now } as never)}
    where key = ${key}
    returning ${selectCustom(db)}`;
  return row;
}

export async function deleteCustomConfig(db: Queryable, key: string): Promise<boolean> {
  return (await db`delete from auth.custom_oauth_configs where key = ${key}`).count > 0;
}
