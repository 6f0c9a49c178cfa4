// The AI gateway's wire contract: chat, image and embedding requests and answers as the official
// client sends and reads them (camelCase requests, `metadata.usage` answers), and the admin's
// settings and usage report.
import { z } from 'zod';

const toolCallSchema = z.object({
  id: z.string(),
  type: z.literal('function'),
  function: z.object({ name: z.string(), arguments: z.string() }),
});
export type ToolCall = z.infer<typeof toolCallSchema>;

const partSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({
    type: z.literal('image_url'),
    image_url: z.object({ url: z.string(), detail: z.enum(['auto', 'low', 'high']).optional() }),
  }),
  z.object({
    type: z.literal('input_audio'),
    input_audio: z.object({
      data: z.string(),
      format: z.enum(['wav', 'mp3', 'aiff', 'aac', 'ogg', 'flac', 'm4a']),
    }),
  }),
  z.object({ type: z.literal('file'), file: z.object({ filename: z.string(), file_data: z.string() }) }),
]);

const messageSchema = z
  .object({
    role: z.enum(['user', 'assistant', 'system', 'tool']),
    content: z.union([z.string(), z.array(partSchema), z.null()]).optional(),
    images: z.array(z.object({ url: z.string() })).optional(),
    tool_calls: z.array(toolCallSchema).optional(),
    tool_call_id: z.string().optional(),
  })
  .refine((m) => m.role === 'assistant' || m.content !== undefined, {
    message: 'content is required for this role',
    path: ['content'],
  })
  .refine((m) => m.role !== 'tool' || m.tool_call_id !== undefined, {
    message: 'Tool message is missing required tool_call_id',
    path: ['tool_call_id'],
  });
export type ChatMessage = z.infer<typeof messageSchema>;

/** The chat request; `maxTokens` is capped by MAX_COMPLETION_TOKENS. */
export const chatRequestSchema = (maxCompletionTokens: number) =>
  z.object({
    model: z.string().min(1).max(256),
    messages: z.array(messageSchema),
    temperature: z.number().min(0).max(2).optional(),
    maxTokens: z.number().int().positive().max(maxCompletionTokens, 'Exceeds configured maximum token cap.').optional(),
    topP: z.number().min(0).max(1).optional(),
    stream: z.boolean().optional(),
    webSearch: z
      .object({
        enabled: z.boolean(),
        engine: z.enum(['native', 'exa']).optional(),
        maxResults: z.number().int().min(1).max(10).optional(),
        searchPrompt: z.string().optional(),
      })
      .optional(),
    fileParser: z
      .object({
        enabled: z.boolean(),
        pdf: z.object({ engine: z.enum(['pdf-text', 'mistral-ocr', 'native']).optional() }).optional(),
      })
      .optional(),
    thinking: z.boolean().optional(),
    tools: z
      .array(
        z.object({
          type: z.literal('function'),
          function: z.object({
            name: z.string(),
            description: z.string().optional(),
            parameters: z.record(z.string(), z.unknown()).optional(),
          }),
        }),
      )
      .optional(),
    toolChoice: z
      .union([
        z.enum(['auto', 'none', 'required']),
        z.object({ type: z.literal('function'), function: z.object({ name: z.string() }) }),
      ])
      .optional(),
    parallelToolCalls: z.boolean().optional(),
  });
export type ChatRequest = z.infer<ReturnType<typeof chatRequestSchema>>;

const usageSchema = z.object({ promptTokens: z.number(), completionTokens: z.number(), totalTokens: z.number() });
export type Usage = z.infer<typeof usageSchema>;

const annotationSchema = z.object({
  type: z.literal('url_citation'),
  urlCitation: z.object({
    url: z.string(),
    title: z.string().optional(),
    content: z.string().optional(),
    startIndex: z.number().optional(),
    endIndex: z.number().optional(),
  }),
});
export type Annotation = z.infer<typeof annotationSchema>;

export const chatResponseSchema = z.object({
  text: z.string(),
  tool_calls: z.array(toolCallSchema).optional(),
  annotations: z.array(annotationSchema).optional(),
  metadata: z.object({ model: z.string(), usage: usageSchema.optional() }),
});
export type ChatResponse = z.infer<typeof chatResponseSchema>;

export const imageRequestSchema = z.object({
  model: z.string().min(1).max(256),
  prompt: z.string().min(1),
  images: z.array(z.object({ url: z.string().min(1) })).optional(),
});
export type ImageRequest = z.infer<typeof imageRequestSchema>;

export const imageResponseSchema = z.object({
  text: z.string().optional(),
  images: z.array(z.object({ type: z.literal('imageUrl'), imageUrl: z.string() })),
  metadata: z.object({ model: z.string(), usage: usageSchema.optional() }),
});
export type ImageResponse = z.infer<typeof imageResponseSchema>;

export const embeddingsRequestSchema = z.object({
  model: z.string().min(1).max(256),
  input: z.union([z.string(), z.array(z.string()).min(1)]),
  encoding_format: z.enum(['float', 'base64']).optional(),
  dimensions: z.number().int().min(0).optional(),
});
export type EmbeddingsRequest = z.infer<typeof embeddingsRequestSchema>;

export const embeddingsResponseSchema = z.object({
  object: z.literal('list'),
  data: z.array(
    z.object({
      object: z.literal('embedding'),
      embedding: z.union([z.array(z.number()), z.string()]),
      index: z.number(),
    }),
  ),
  metadata: z.object({
    model: z.string(),
    usage: z.object({ promptTokens: z.number(), totalTokens: z.number() }).optional(),
  }),
});
export type EmbeddingsResponse = z.infer<typeof embeddingsResponseSchema>;

// ---------------------------------------------------------------------------------------------
// Admin

const budget = z.number().int().min(0).nullable();

export const aiSettingsSchema = z.object({
  allowAnon: z.boolean(),
  userDailyTokenBudget: budget,
  projectDailyTokenBudget: budget,
  allowedModels: z.array(z.string()),
  updatedAt: z.string().nullable(),
});
export type AiSettings = z.infer<typeof aiSettingsSchema>;

export const aiSettingsUpdateSchema = z
  .object({
    allowAnon: z.boolean().optional(),
    userDailyTokenBudget: budget.optional(),
    projectDailyTokenBudget: budget.optional(),
    allowedModels: z.array(z.string().trim().min(1).max(256)).max(1000).optional(),
  })
  .strict();
export type AiSettingsUpdate = z.infer<typeof aiSettingsUpdateSchema>;

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD');

export const usageQuerySchema = z.object({
  from: day.optional(),
  to: day.optional(),
  subject: z.string().max(256).optional(),
});
export type UsageQuery = z.infer<typeof usageQuerySchema>;

export const usageRowSchema = z.object({
  day: z.string(),
  subject: z.string(),
  subjectKind: z.enum(['user', 'anon', 'admin']),
  model: z.string(),
  requests: z.number(),
  inputTokens: z.number(),
  outputTokens: z.number(),
});
export type UsageRow = z.infer<typeof usageRowSchema>;

export const usageReportSchema = z.object({ from: z.string(), to: z.string(), usage: z.array(usageRowSchema) });

export const usageByCallerQuerySchema = z.object({
  from: day.optional(),
  to: day.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100).describe('The heaviest callers first (default 100)'),
});
export type UsageByCallerQuery = z.infer<typeof usageByCallerQuerySchema>;

export const callerUsageSchema = z.object({
  subject: z.string(),
  subjectKind: z.enum(['user', 'anon', 'admin']),
  /** The user's email (users only; null once the user is deleted). */
  email: z.string().nullable(),
  requests: z.number(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  models: z.array(z.string()),
  firstDay: z.string(),
  lastDay: z.string(),
});
export type CallerUsage = z.infer<typeof callerUsageSchema>;

export const usageByCallerSchema = z.object({
  from: z.string(),
  to: z.string(),
  /** Callers in the range beyond `limit` are counted here, not listed. */
  callers: z.number(),
  usage: z.array(callerUsageSchema),
});

const credential = z.object({ configured: z.boolean(), maskedKey: z.string().nullable() });
export const gatewayConfigSchema = z.object({ apiKey: credential, managementKey: credential });
export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

const secretValue = z.string().trim().min(1, 'must not be empty').max(512);
export const gatewayConfigUpdateSchema = z
  .object({ apiKey: secretValue.optional(), managementKey: secretValue.optional() })
  .refine((c) => c.apiKey !== undefined || c.managementKey !== undefined, {
    message: 'At least one credential is required',
  });
export type GatewayConfigUpdate = z.infer<typeof gatewayConfigUpdateSchema>;

export const catalogModelSchema = z.object({
  id: z.string(),
  created: z.number().optional(),
  inputModality: z.array(z.string()),
  outputModality: z.array(z.string()),
  provider: z.literal('openrouter'),
  modelId: z.string(),
  inputPrice: z.number().optional(),
  outputPrice: z.number().optional(),
  inputPriceLabel: z.string().optional(),
  outputPriceLabel: z.string().optional(),
});
export type CatalogModel = z.infer<typeof catalogModelSchema>;
