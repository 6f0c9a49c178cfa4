// The gateway's credentials as GET/PUT /api/ai/config shows and sets them (sdk-surface 2.9): the
// provider key and the management key, each configured or not, masked, never shown in full.
import type { Deps } from '../../deps.js';
import { GATEWAY_SECRETS, maskKey, readGatewaySecret, storeGatewaySecret } from './ai-key.js';
import type { GatewayConfig, GatewayConfigUpdate } from './ai.schemas.js';

type Name = keyof typeof GATEWAY_SECRETS;
const NAMES = Object.keys(GATEWAY_SECRETS) as Name[];

/** `onKeyChange`: told after a new provider key is stored, so the gateway stops using the old one. */
export function createGatewayConfigService(deps: Pick<Deps, 'sql' | 'keyring' | 'clock'>, onKeyChange: () => void) {
  async function view(): Promise<GatewayConfig> {
    const [apiKey, managementKey] = await Promise.all(
      NAMES.map(async (name) => {
        const value = await readGatewaySecret(deps.sql, deps.keyring, GATEWAY_SECRETS[name]);
        return { configured: value !== undefined, maskedKey: value === undefined ? null : maskKey(value) };
      }),
    );
    return { apiKey: apiKey!, managementKey: managementKey! };
  }

  return {
    view,
    async update(update: GatewayConfigUpdate): Promise<GatewayConfig> {
      for (const name of NAMES) {
        const value = update[name];
        if (value !== undefined)
          await storeGatewaySecret(deps.sql, deps.keyring, GATEWAY_SECRETS[name], value, deps.clock.now());
      }
      if (update.apiKey !== undefined) onKeyChange();
      return view();
    },
  };
}

export type GatewayConfigService = ReturnType<typeof createGatewayConfigService>;
