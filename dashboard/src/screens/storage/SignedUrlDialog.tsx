// A dialog with a URL that downloads one object without a credential (signed and expiring on
// private buckets; the plain URL on public ones), and a button that copies it.
import { Button, CopyButton, Group, Modal, NumberInput, Stack, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../api/context';
import { TONE_COLOR } from '../../ui/StatusBadge';
import { ErrorState, Loading } from '../../shell/states';
import { downloadStrategyApi } from './paths';
import type { DownloadStrategy, StoredObject } from './types';

export function SignedUrlDialog({ object, onClose }: { object: StoredObject; onClose(): void }) {
  const api = useApi();
  const [expiresIn, setExpiresIn] = useState(3600);
  const strategy = useQuery({
    queryKey: ['signed-url', object.bucket, object.key, expiresIn],
    gcTime: 0,
    queryFn: () => api.json<DownloadStrategy>(downloadStrategyApi(object.bucket, object.key, expiresIn)),
  });

  return (
    <Modal
      opened
      onClose={onClose}
      closeButtonProps={{ 'aria-label': 'Close' }}
      title={`Signed URL of ${object.key}`}
      size="lg"
      centered
    >
      <Stack>
        <NumberInput
          label="Valid for (seconds)"
          min={60}
          max={604800}
          value={expiresIn}
          onChange={(value) => setExpiresIn(typeof value === 'number' && value >= 60 ? value : 3600)}
        />
        {strategy.isPending ? <Loading what="the signed URL" /> : null}
        {strategy.isError ? <ErrorState error={strategy.error} what="the signed URL" /> : null}
        {strategy.data ? (
          <>
            <TextInput
              label="Signed URL"
              readOnly
              value={strategy.data.url}
              onFocus={(e) => e.currentTarget.select()}
            />
            <Text size="sm">
              {strategy.data.expiresAt
                ? `Expires ${new Date(strategy.data.expiresAt).toLocaleString()}.`
                : 'The bucket is public: this URL does not expire.'}
            </Text>
            <Group justify="flex-end">
              <CopyButton value={strategy.data.url}>
                {({ copied, copy }) => (
                  <Button onClick={copy} color={copied ? TONE_COLOR.good : undefined}>
                    {copied ? 'Copied' : 'Copy signed URL'}
                  </Button>
                )}
              </CopyButton>
            </Group>
          </>
        ) : null}
      </Stack>
    </Modal>
  );
}
