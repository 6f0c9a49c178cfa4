// The live tail: GET /api/logs/stream (Server-Sent Events) read through fetch, so the admin's
// bearer token goes with it (EventSource cannot send headers); each "log" event is handed on.
import { useEffect, useRef, useState } from 'react';
import { useApi } from '../../api/context';
import { readEventStream } from '../../api/event-stream';
import type { LogLine } from './log-types';

export type TailStatus =
  | { state: 'off' }
  | { state: 'connecting' }
  | { state: 'open' }
  | { state: 'failed'; error: unknown };

export function useLogTail(query: string, enabled: boolean, onLine: (line: LogLine) => void): TailStatus {
  const api = useApi();
  const [status, setStatus] = useState<TailStatus>({ state: 'off' });
  const handler = useRef(onLine);
  handler.current = onLine;

  useEffect(() => {
    if (!enabled) {
      setStatus({ state: 'off' });
      return;
    }
    const abort = new AbortController();
    setStatus({ state: 'connecting' });
    (async () => {
      const res = await api.request(`/api/logs/stream${query ? `?${query}` : ''}`, {
        signal: abort.signal,
        headers: { accept: 'text/event-stream' },
      });
      if (!res.body) throw new Error('The server sent no stream.');
      setStatus({ state: 'open' });
      await readEventStream(res, (e) => {
        if (e.event === 'log') handler.current(JSON.parse(e.data) as LogLine);
      });
      setStatus({ state: 'off' });
    })().catch((error: unknown) => {
      if (!abort.signal.aborted) setStatus({ state: 'failed', error });
    });
    return () => abort.abort();
  }, [api, query, enabled]);

  return status;
}
