// Server-Sent Events read from a fetch response (EventSource cannot send the admin's bearer
// token): each complete event's name and data, as they arrive.

export interface StreamEvent {
  event: string;
  data: string;
}

/** Calls `onEvent` for every event of the stream until it ends or the request is aborted. */
export async function readEventStream(response: Response, onEvent: (event: StreamEvent) => void): Promise<void> {
  if (!response.body) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffered += value.replace(/\r\n?/g, '\n');
    for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length > 0) onEvent({ event, data: data.join('\n') });
    }
  }
}
