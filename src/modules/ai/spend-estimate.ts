// The worst case an AI call may cost, reserved against the daily budgets before it goes upstream:
// its prompt estimated from its size, plus the most output it is allowed to produce.
import type { TokenEstimate } from './guards.service.js';

/** Output cap sent upstream when the caller gives no maxTokens (so the reservation bounds it). */
export const DEFAULT_MAX_TOKENS = 4096;

/**
 * Prompt tokens estimated high: one per 3 bytes of the request's JSON (English text averages ~4
 * bytes a token, other scripts fewer tokens per byte). Settling with the provider's count refunds it.
 */
const promptTokens = (prompt: unknown): number => Math.ceil(Buffer.byteLength(JSON.stringify(prompt)) / 3);

export const worstCase = (prompt: unknown, maxOutputTokens: number): TokenEstimate => ({
  inputTokens: promptTokens(prompt),
  outputTokens: maxOutputTokens,
});
