// The live tail: GET /api/logs/stream (Server-Sent Events) read through fetch, so the admin's
// bearer token goes with it (EventSource cannot send headers); each "log" event is handed on.
import { useEffect, useRef, useState } from 'react';
import { useApi } from '../../api/context';
import type { LogLine } from './log-types';

export type TailStatus =
  | { state: 'off' }
  | { state: 'connecting' }
  | { state: 'open' }
  | { state: 'failed'; error: unknown };

/** Each complete event of `text` ("event: …\ndata: …\n\n"); the unfinished rest is returned. */
export function takeEvents(text: string): { events: { event: string; data: string }[]; rest: string } {
  const blocks = text.split('\n\n');
  const rest = blocks.pop() ?? '';
  const events = blocks.flatMap((block) => {
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
    }
    return data.length > 0 ? [{ event, data: data.join('\n') }] : [];
  });
  return { events, rest };
}

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
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let pending = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        const { events, rest } = takeEvents(pending + value);
        pending = rest;
        for (const e of events) if (e.event === 'log') handler.current(JSON.parse(e.data) as LogLine);
      }
      setStatus({ state: 'off' });
    })().catch((error: unknown) => {
      if (!abort.signal.aborted) setStatus({ state: 'failed', error });
    });
    return () => abort.abort();
  }, [api, query, enabled]);

  return status;
}
