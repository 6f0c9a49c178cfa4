// Translation between the client's chat request/answer (sdk-surface 2.2-2.5) and the provider's
// OpenAI-compatible chat completion: the upstream body, the JSON answer, and the pieces a stream
// collects (tool-call deltas grouped by index, citations, usage).
import type OpenAI from 'openai';
import { DEFAULT_MAX_TOKENS } from './spend-estimate.js';
import type { Annotation, ChatMessage, ChatRequest, ChatResponse, ToolCall, Usage } from './ai.schemas.js';

type UpstreamMessage = OpenAI.Chat.ChatCompletionMessageParam;
type UpstreamUsage = OpenAI.Completions.CompletionUsage;

/** The model id sent upstream: `:thinking` appended when thinking is asked for. */
export const upstreamModel = (req: Pick<ChatRequest, 'model' | 'thinking'>): string =>
  req.thinking && !req.model.endsWith(':thinking') ? `${req.model}:thinking` : req.model;

function toUpstreamMessage(m: ChatMessage): UpstreamMessage {
  if (m.role === 'tool') {
    const content = typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? null);
    return { role: 'tool', content, tool_call_id: m.tool_call_id ?? '' };
  }
  if (m.role === 'assistant' && m.tool_calls?.length) {
    return { role: 'assistant', content: typeof m.content === 'string' ? m.content : null, tool_calls: m.tool_calls };
  }
  if (m.images?.length && typeof m.content === 'string') {
    const parts = [
      { type: 'text' as const, text: m.content },
      ...m.images.map((i) => ({ type: 'image_url' as const, image_url: { url: i.url } })),
    ];
    return { role: m.role, content: parts } as UpstreamMessage;
  }
  return { role: m.role, content: m.content } as UpstreamMessage;
}

function plugins(req: ChatRequest): Record<string, unknown>[] {
  const list: Record<string, unknown>[] = [];
  if (req.webSearch?.enabled) {
    list.push({
      id: 'web',
      engine: req.webSearch.engine,
      max_results: req.webSearch.maxResults,
      search_prompt: req.webSearch.searchPrompt,
    });
  }
  if (req.fileParser?.enabled) {
    list.push({ id: 'file-parser', ...(req.fileParser.pdf ? { pdf: req.fileParser.pdf } : {}) });
  }
  return list;
}

/** The upstream chat body (provider extensions such as `plugins` ride along untyped). */
export function toUpstreamChat(req: ChatRequest): OpenAI.Chat.ChatCompletionCreateParamsNonStreaming {
  const extra = plugins(req);
  return {
    model: upstreamModel(req),
    messages: req.messages.map(toUpstreamMessage),
    temperature: req.temperature ?? 0.7,
    max_tokens: req.maxTokens ?? DEFAULT_MAX_TOKENS,
    ...(req.topP !== undefined ? { top_p: req.topP } : {}),
    ...(extra.length > 0 ? { plugins: extra } : {}),
    ...(req.tools ? { tools: req.tools } : {}),
    ...(req.toolChoice !== undefined ? { tool_choice: req.toolChoice } : {}),
    ...(req.parallelToolCalls !== undefined ? { parallel_tool_calls: req.parallelToolCalls } : {}),
  };
}

export const toUsage = (u: UpstreamUsage | null | undefined): Usage | undefined =>
  u ? { promptTokens: u.prompt_tokens, completionTokens: u.completion_tokens, totalTokens: u.total_tokens } : undefined;

interface UpstreamAnnotation {
  type?: string;
  url_citation?: { url: string; title?: string; content?: string; start_index?: number; end_index?: number };
}

/** `url_citation` annotations in the client's camelCase; other kinds are dropped. */
export function toAnnotations(list: readonly UpstreamAnnotation[] | undefined): Annotation[] {
  return (list ?? []).flatMap((a) =>
    a.type === 'url_citation' && a.url_citation
      ? [
          {
            type: 'url_citation' as const,
            urlCitation: {
              url: a.url_citation.url,
              title: a.url_citation.title,
              content: a.url_citation.content,
              startIndex: a.url_citation.start_index,
              endIndex: a.url_citation.end_index,
            },
          },
        ]
      : [],
  );
}

/** The JSON answer: text, function calls, citations, the model sent and its usage. */
export function fromUpstreamChat(completion: OpenAI.Chat.ChatCompletion, model: string): ChatResponse {
  const message = completion.choices[0]?.message;
  const toolCalls = (message?.tool_calls ?? []).flatMap((c) =>
    c.type === 'function'
      ? [{ id: c.id, type: 'function' as const, function: { name: c.function.name, arguments: c.function.arguments } }]
      : [],
  );
  const annotations = toAnnotations(message?.annotations as UpstreamAnnotation[] | undefined);
  const usage = toUsage(completion.usage);
  return {
    text: message?.content ?? '',
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    ...(annotations.length > 0 ? { annotations } : {}),
    metadata: { model, ...(usage ? { usage } : {}) },
  };
}

/** What a stream has collected so far, for the events after the last delta and for usage. */
export function createStreamCollector() {
  const toolCalls = new Map<number, ToolCall>();
  const annotations: Annotation[] = [];
  let usage: Usage | undefined;
  return {
    /** Takes one upstream chunk; answers the text delta to forward and the running usage, if any. */
    take(chunk: OpenAI.Chat.ChatCompletionChunk): { text?: string; usage?: Usage } {
      const delta = chunk.choices[0]?.delta;
      for (const d of delta?.tool_calls ?? []) {
        const known = toolCalls.get(d.index);
        if (known) known.function.arguments += d.function?.arguments ?? '';
        else {
          toolCalls.set(d.index, {
            id: d.id ?? '',
            type: 'function',
            function: { name: d.function?.name ?? '', arguments: d.function?.arguments ?? '' },
          });
        }
      }
      annotations.push(...toAnnotations((delta as { annotations?: UpstreamAnnotation[] })?.annotations));
      const reported = toUsage(chunk.usage);
      if (reported) {
        usage = usage
          ? {
              promptTokens: usage.promptTokens + reported.promptTokens,
              completionTokens: usage.completionTokens + reported.completionTokens,
              totalTokens: usage.totalTokens + reported.totalTokens,
            }
          : reported;
      }
      const text = delta?.content || undefined;
      return { text, usage: reported ? usage : undefined };
    },
    toolCalls: (): ToolCall[] => [...toolCalls.entries()].sort(([a], [b]) => a - b).map(([, c]) => c),
    annotations: () => annotations,
    /** Tokens as the provider reported them; undefined when it did not (a stream cut short). */
    reportedTokens: () =>
      usage ? { inputTokens: usage.promptTokens, outputTokens: usage.completionTokens } : undefined,
  };
}
