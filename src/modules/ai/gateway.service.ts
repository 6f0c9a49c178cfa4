// The AI gateway: chat (JSON or a stream of SSE events), image generation and embeddings on the
// provider's OpenAI-compatible API, each call admitted by the guards first (its worst case reserved)
// and settled after with what the provider reports.
import type OpenAI from 'openai';
import type {
  ChatRequest,
  ChatResponse,
  EmbeddingsRequest,
  EmbeddingsResponse,
  ImageRequest,
  ImageResponse,
} from './ai.schemas.js';
import { createStreamCollector, fromUpstreamChat, toUpstreamChat, toUsage, upstreamModel } from './chat-format.js';
import type { Caller, Guards, Reservation, TokenEstimate } from './guards.service.js';
import { DEFAULT_MAX_TOKENS, worstCase } from './spend-estimate.js';
import { isAbort, toAiError, type UpstreamClients } from './upstream.js';

/** One server-sent event as the client parses it: `data: ` + compact JSON + a blank line. */
export const sseEvent = (payload: unknown): string => `data: ${JSON.stringify(payload)}\n\n`;

interface ImageMessage {
  content?: string | null;
  images?: { type?: string; image_url?: { url: string } }[];
}

/** A chat's worst case: its messages and tools, and the output cap sent upstream. */
const chatWorstCase = (body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming): TokenEstimate =>
  worstCase([body.messages, body.tools ?? null], body.max_tokens ?? DEFAULT_MAX_TOKENS);

/** What the provider says a call cost; undefined (the worst case is charged) when it says nothing. */
const reportedCost = (usage: OpenAI.Completions.CompletionUsage | undefined): TokenEstimate | undefined =>
  usage ? { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens } : undefined;

export function createGatewayService(
  clients: UpstreamClients,
  guards: Guards,
  onError: (err: unknown, what: string) => void,
) {
  /** The upstream client and the call's reservation once the guards admit it (the key is read meanwhile). */
  async function admitted(caller: Caller, model: string, cost: TokenEstimate) {
    const client = clients.get();
    client.catch(() => {}); // a refusal by the guards wins over a missing key
    const reservation = await guards.admit(caller, model, cost);
    try {
      return { client: await client, reservation };
    } catch (err) {
      cancel(reservation);
      throw err;
    }
  }

  /** Settles the call without holding the answer back (the guards wait for it before the next check). */
  const settle = (r: Reservation, cost?: TokenEstimate) => {
    guards.settle(r, cost).catch((err) => onError(err, 'recording AI usage'));
  };
  const cancel = (r: Reservation) => {
    guards.cancel(r).catch((err) => onError(err, 'releasing an AI reservation'));
  };

  /**
   * Runs an upstream call, with its failures in the client's vocabulary. A call the caller left is
   * charged its reservation (the provider may have worked on it); one the provider refused, nothing.
   */
  async function upstream<T>(r: Reservation, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (await isAbort(err)) settle(r);
      else cancel(r);
      throw await toAiError(err);
    }
  }

  /** The events of a started stream; ends without `done` after a failure or when the caller left. */
  async function* streamEvents(
    reservation: Reservation,
    stream: AsyncIterable<OpenAI.Chat.ChatCompletionChunk>,
    signal: AbortSignal,
  ): AsyncGenerator<string> {
    const collected = createStreamCollector();
    try {
      for await (const chunk of stream) {
        const { text, usage } = collected.take(chunk);
        if (text) yield sseEvent({ chunk: text });
        if (usage) yield sseEvent({ tokenUsage: usage });
      }
      if (signal.aborted) return; // the caller left: nobody reads the rest
      const toolCalls = collected.toolCalls();
      if (toolCalls.length > 0) yield sseEvent({ tool_calls: toolCalls });
      const annotations = collected.annotations();
      if (annotations.length > 0) yield sseEvent({ annotations });
      yield sseEvent({ done: true });
    } catch (err) {
      if (signal.aborted || (await isAbort(err))) return;
      const failure = await toAiError(err);
      onError(failure, 'AI stream');
      yield sseEvent({ error: true, message: failure instanceof Error ? failure.message : 'The AI stream failed.' });
    } finally {
      // A cut stream without the provider's count is charged its whole reservation.
      settle(reservation, collected.reportedTokens());
    }
  }

  return {
    async chat(caller: Caller, req: ChatRequest, signal: AbortSignal): Promise<ChatResponse> {
      const body = toUpstreamChat(req);
      const { client, reservation } = await admitted(caller, req.model, chatWorstCase(body));
      const completion = await upstream(reservation, () => client.chat.completions.create(body, { signal }));
      settle(reservation, reportedCost(completion.usage));
      return fromUpstreamChat(completion, upstreamModel(req));
    },

    /**
     * Starts a stream: guard and upstream failures before the first byte throw (a JSON error);
     * after that, failures become the stream's error event.
     */
    async chatStream(caller: Caller, req: ChatRequest, signal: AbortSignal): Promise<AsyncGenerator<string>> {
      const body = toUpstreamChat(req);
      const { client, reservation } = await admitted(caller, req.model, chatWorstCase(body));
      const stream = await upstream(reservation, () =>
        client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } }, { signal }),
      );
      return streamEvents(reservation, stream, signal);
    },

    async generateImage(caller: Caller, req: ImageRequest, signal: AbortSignal): Promise<ImageResponse> {
      const content = req.images?.length
        ? [
            { type: 'text' as const, text: req.prompt },
            ...req.images.map((i) => ({ type: 'image_url' as const, image_url: { url: i.url } })),
          ]
        : req.prompt;
      const body = {
        model: req.model,
        messages: [{ role: 'user' as const, content }],
        max_tokens: DEFAULT_MAX_TOKENS,
        stream: false as const,
      };
      const { client, reservation } = await admitted(caller, req.model, worstCase(body.messages, DEFAULT_MAX_TOKENS));
      const completion = await upstream(reservation, () =>
        client.chat.completions.create({ ...body, modalities: ['text', 'image'] } as typeof body, { signal }),
      );
      const messages = completion.choices.map((c) => c.message as ImageMessage);
      const images = messages.flatMap((m) =>
        (m.images ?? []).flatMap((i) =>
          i.type === 'image_url' && i.image_url ? [{ type: 'imageUrl' as const, imageUrl: i.image_url.url }] : [],
        ),
      );
      const text = messages.map((m) => m.content).findLast((c): c is string => typeof c === 'string' && c !== '');
      const usage = toUsage(completion.usage);
      settle(reservation, reportedCost(completion.usage));
      return {
        ...(text !== undefined ? { text } : {}),
        images,
        metadata: { model: req.model, ...(usage ? { usage } : {}) },
      };
    },

    async embed(caller: Caller, req: EmbeddingsRequest, signal: AbortSignal): Promise<EmbeddingsResponse> {
      const { client, reservation } = await admitted(caller, req.model, worstCase(req.input, 0));
      const result = await upstream(reservation, () =>
        client.embeddings.create(
          {
            model: req.model,
            input: req.input,
            encoding_format: req.encoding_format ?? 'float',
            ...(req.dimensions !== undefined ? { dimensions: req.dimensions } : {}),
          },
          { signal },
        ),
      );
      settle(reservation, result.usage ? { inputTokens: result.usage.prompt_tokens, outputTokens: 0 } : undefined);
      return {
        object: 'list',
        data: result.data.map((d) => ({ object: 'embedding' as const, embedding: d.embedding, index: d.index })),
        metadata: {
          model: result.model,
          ...(result.usage
            ? { usage: { promptTokens: result.usage.prompt_tokens, totalTokens: result.usage.total_tokens } }
            : {}),
        },
      };
    },
  };
}

export type GatewayService = ReturnType<typeof createGatewayService>;
