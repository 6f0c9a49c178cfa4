// The AI gateway: chat (JSON or a stream of SSE events), image generation and embeddings on the
// provider's OpenAI-compatible API, each call admitted by the guards first and counted after.
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
import type { Caller, Guards } from './guards.service.js';
import { isAbort, toAiError, type UpstreamClients } from './upstream.js';

/** One server-sent event as the client parses it: `data: ` + compact JSON + a blank line. */
export const sseEvent = (payload: unknown): string => `data: ${JSON.stringify(payload)}\n\n`;

interface ImageMessage {
  content?: string | null;
  images?: { type?: string; image_url?: { url: string } }[];
}

/** Runs an upstream call, with its failures in the client's vocabulary. */
async function upstream<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw await toAiError(err);
  }
}

export function createGatewayService(
  clients: UpstreamClients,
  guards: Guards,
  onError: (err: unknown, what: string) => void,
) {
  /** The upstream client once the guards admit the call (the key is read meanwhile). */
  async function admitted(caller: Caller, model: string): Promise<OpenAI> {
    const client = clients.get();
    client.catch(() => {}); // a refusal by the guards wins over a missing key
    await guards.admit(caller, model);
    return client;
  }

  /** Counts the call without holding the answer back (the guards wait for it before the next check). */
  const record = (caller: Caller, model: string, tokens: { inputTokens: number; outputTokens: number }) => {
    guards.record(caller, model, tokens).catch((err) => onError(err, 'recording AI usage'));
  };

  /** The events of a started stream; ends without `done` after a failure or when the caller left. */
  async function* streamEvents(
    caller: Caller,
    model: string,
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
      record(caller, model, collected.tokens());
    }
  }

  return {
    async chat(caller: Caller, req: ChatRequest, signal: AbortSignal): Promise<ChatResponse> {
      const client = await admitted(caller, req.model);
      const completion = await upstream(() => client.chat.completions.create(toUpstreamChat(req), { signal }));
      const answer = fromUpstreamChat(completion, upstreamModel(req));
      record(caller, req.model, {
        inputTokens: completion.usage?.prompt_tokens ?? 0,
        outputTokens: completion.usage?.completion_tokens ?? 0,
      });
      return answer;
    },

    /**
     * Starts a stream: guard and upstream failures before the first byte throw (a JSON error);
     * after that, failures become the stream's error event.
     */
    async chatStream(caller: Caller, req: ChatRequest, signal: AbortSignal): Promise<AsyncGenerator<string>> {
      const client = await admitted(caller, req.model);
      const stream = await upstream(() =>
        client.chat.completions.create(
          { ...toUpstreamChat(req), stream: true, stream_options: { include_usage: true } },
          { signal },
        ),
      );
      return streamEvents(caller, req.model, stream, signal);
    },

    async generateImage(caller: Caller, req: ImageRequest, signal: AbortSignal): Promise<ImageResponse> {
      const client = await admitted(caller, req.model);
      const content = req.images?.length
        ? [
            { type: 'text' as const, text: req.prompt },
            ...req.images.map((i) => ({ type: 'image_url' as const, image_url: { url: i.url } })),
          ]
        : req.prompt;
      const body = { model: req.model, messages: [{ role: 'user' as const, content }], stream: false as const };
      const completion = await upstream(() =>
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
      record(caller, req.model, {
        inputTokens: usage?.promptTokens ?? 0,
        outputTokens: usage?.completionTokens ?? 0,
      });
      return {
        ...(text !== undefined ? { text } : {}),
        images,
        metadata: { model: req.model, ...(usage ? { usage } : {}) },
      };
    },

    async embed(caller: Caller, req: EmbeddingsRequest, signal: AbortSignal): Promise<EmbeddingsResponse> {
      const client = await admitted(caller, req.model);
      const result = await upstream(() =>
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
      record(caller, req.model, { inputTokens: result.usage?.prompt_tokens ?? 0, outputTokens: 0 });
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
