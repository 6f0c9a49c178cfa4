// The provider's model list as GET /api/ai/models answers it (sdk-surface 2.9): modalities
// deduplicated in a fixed order, per-million-token prices with their labels, vendors ranked.
import type { CatalogModel } from './ai.schemas.js';

/** A model as the provider lists it (OpenRouter's fields; others are ignored). */
export interface ProviderModel {
  id: string;
  created?: number;
  architecture?: { input_modalities?: string[]; output_modalities?: string[] };
  pricing?: { prompt?: string | number; completion?: string | number };
}

const MODALITY_ORDER = ['text', 'image', 'audio', 'video', 'file', 'embeddings'];
const VENDOR_ORDER = ['openai', 'anthropic', 'google', 'amazon'];

const rankOf = (order: string[], value: string) => {
  const i = order.indexOf(value);
  return i === -1 ? order.length : i;
};

/** Unique modalities: the known ones in their order, then the others alphabetically. */
export function orderModalities(list: readonly string[] | undefined): string[] {
  return [...new Set(list ?? [])].sort(
    (a, b) => rankOf(MODALITY_ORDER, a) - rankOf(MODALITY_ORDER, b) || a.localeCompare(b),
  );
}

/** Price per million tokens, rounded to 6 decimals; undefined when the provider gives none. */
function perMillion(perToken: string | number | undefined): number | undefined {
  const value = Number(perToken);
  if (perToken === undefined || perToken === '' || !Number.isFinite(value) || value < 0) return undefined;
  return Math.round(value * 1_000_000 * 1e6) / 1e6;
}

export function priceLabel(price: number): string {
  if (price === 0) return 'Free';
  const digits = price < 0.01 ? 4 : price < 1 ? 2 : 1;
  return `$${price.toFixed(digits)} / M tokens`;
}

function toCatalogModel(m: ProviderModel): CatalogModel | undefined {
  const inputModality = orderModalities(m.architecture?.input_modalities);
  const outputModality = orderModalities(m.architecture?.output_modalities);
  if (inputModality.length === 0 || outputModality.length === 0) return undefined;
  const tokenPricedInput = inputModality.some((x) => x === 'text' || x === 'file' || x === 'embeddings');
  const inputPrice = tokenPricedInput ? perMillion(m.pricing?.prompt) : undefined;
  const outputPrice = outputModality.includes('text') ? perMillion(m.pricing?.completion) : undefined;
  return {
    id: m.id,
    ...(m.created !== undefined ? { created: m.created } : {}),
    inputModality,
    outputModality,
    provider: 'openrouter',
    modelId: m.id,
    ...(inputPrice !== undefined ? { inputPrice, inputPriceLabel: priceLabel(inputPrice) } : {}),
    ...(outputPrice !== undefined ? { outputPrice, outputPriceLabel: priceLabel(outputPrice) } : {}),
  };
}

/** The catalogue: usable models, by vendor rank (openai, anthropic, google, amazon, others), then id. */
export function toCatalog(models: readonly ProviderModel[]): CatalogModel[] {
  const vendor = (id: string) => rankOf(VENDOR_ORDER, id.split('/')[0] ?? '');
  return models
    .flatMap((m) => toCatalogModel(m) ?? [])
    .sort((a, b) => vendor(a.id) - vendor(b.id) || a.id.localeCompare(b.id));
}
