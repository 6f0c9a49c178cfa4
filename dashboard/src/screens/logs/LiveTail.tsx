// Live tail of new log lines (source and level filters apply; the console's own requests only when
// shown), newest first: start, pause (new lines wait, counted) and resume, stop.
import { Button, Group, Stack, Text } from '@mantine/core';
import { useCallback, useState } from 'react';
import { ActionError } from '../../ui/ActionError';
import { isConsoleRequest } from './log-pages';
import { type LogFilter, type LogLine, tailQuery } from './log-types';
import { LogTable } from './LogTable';
import { useLogTail } from './use-log-tail';

const KEEP = 200;
const STATUS_TEXT = { off: 'Off', connecting: 'Connecting…', open: 'Live', paused: 'Paused', failed: 'Failed' };

export function LiveTail({
  filter,
  showConsole,
  onOpenRequest,
}: {
  filter: LogFilter;
  /** Off: the console's own requests are left out. */
  showConsole: boolean;
  onOpenRequest: (id: string) => void;
}) {
  const [running, setRunning] = useState(false);
  const [paused, setPaused] = useState(false);
  const [shown, setShown] = useState<LogLine[]>([]);
  const [waiting, setWaiting] = useState<LogLine[]>([]);

  const receive = useCallback(
    (line: LogLine) => {
      if (!showConsole && isConsoleRequest(line)) return;
      if (paused) setWaiting((w) => [line, ...w].slice(0, KEEP));
      else setShown((s) => [line, ...s].slice(0, KEEP));
    },
    [paused, showConsole],
  );
  const status = useLogTail(tailQuery(filter).toString(), running, receive);

  const resume = () => {
    setShown((s) => [...waiting, ...s].slice(0, KEEP));
    setWaiting([]);
    setPaused(false);
  };
  const stop = () => {
    setRunning(false);
    setPaused(false);
    setWaiting([]);
  };

  return (
    <Stack gap="xs">
      <Group gap="xs">
        {running ? (
          <>
            {paused ? <Button onClick={resume}>Resume</Button> : <Button onClick={() => setPaused(true)}>Pause</Button>}
            <Button variant="default" onClick={stop}>
              Stop live tail
            </Button>
          </>
        ) : (
          <Button onClick={() => setRunning(true)}>Start live tail</Button>
        )}
        <Text size="sm" fw={700} role="status">
          {STATUS_TEXT[status.state === 'open' && paused ? 'paused' : status.state]}
        </Text>
        {paused && waiting.length > 0 ? (
          <Text size="sm">
            {waiting.length} new line{waiting.length === 1 ? '' : 's'} waiting
          </Text>
        ) : null}
        {shown.length > 0 ? (
          <Button variant="subtle" size="xs" onClick={() => setShown([])}>
            Clear
          </Button>
        ) : null}
      </Group>
      {status.state === 'failed' ? <ActionError title="The live tail stopped" error={status.error} /> : null}
      <Text size="sm">The live tail follows the source and level filters; the newest line comes first.</Text>
      {running && shown.length === 0 ? <Text size="sm">Waiting for new log lines…</Text> : null}
      {shown.length > 0 ? <LogTable label="Live log lines" lines={shown} onOpenRequest={onOpenRequest} /> : null}
    </Stack>
  );
}
