// The shapes of the functions and logs API answers this screen reads (api-contract §5.1, §6).

export interface FunctionSummary {
  id: string;
  slug: string;
  name: string;
  description: string | null;
  status: 'draft' | 'active' | 'error';
  verifyJwt: boolean;
  version: number;
  createdAt: string;
  updatedAt: string;
  deployedAt: string | null;
}

export interface FunctionDetail extends FunctionSummary {
  code: string;
}

export interface FunctionList {
  functions: FunctionSummary[];
  runtime: { status: 'running' | 'unavailable' };
}

export interface FunctionWrite {
  function: FunctionDetail;
  deployment: { id: string; status: 'success' | 'failed' | 'pending'; url: string | null } | null;
}

/** One log entry as search and the live tail send it. */
export interface LogLine {
  id: string;
  timestamp: string;
  eventMessage: string;
  body: {
    level: string;
    method: string | null;
    status: number | null;
    durationMs: number | null;
    requestId: string | null;
    slug: string | null;
    message: string;
  };
}

/** The path of the screen that creates a function ("+" is never in a slug). */
export const NEW_FUNCTION = '+new';
export const functionApi = (slug: string) => `/api/functions/${encodeURIComponent(slug)}`;
