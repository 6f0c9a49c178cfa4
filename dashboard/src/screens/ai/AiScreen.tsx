// AI: whether a provider key is set (and, if not, which setting sets it), the key (write-only),
// the model allow-list, and usage per caller and per caller and day.
import { Alert, Code, Divider, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useApi } from '../../api/context';
import { readableAlertTitle } from '../../ui/ActionError';
import { AllowedModels } from './AllowedModels';
import { ProviderKeyForm } from './ProviderKeyForm';
import { aiKey, type GatewayConfig } from './types';
import { UsagePanel } from './UsagePanel';

/** What to do when no provider key is stored: the server setting, or the form below. */
function NotConfigured() {
  return (
    <Alert color="yellow" title="AI is not configured" styles={readableAlertTitle} role="status">
      <Stack gap={4}>
        <Text size="sm">
          No AI provider key is stored, so calls to the AI routes fail until one is. Either start the server with{' '}
          <Code>OPENROUTER_API_KEY=sk-or-…</Code> in its environment (it seeds the stored key once), or paste a key in
          the form below.
        </Text>
        <Text size="sm">
          Another OpenAI-compatible provider: set <Code>OPENROUTER_BASE_URL</Code> too (docs/ai.md).
        </Text>
      </Stack>
    </Alert>
  );
}

export default function AiScreen() {
  const api = useApi();
  const config = useQuery({ queryKey: [...aiKey, 'config'], queryFn: () => api.json<GatewayConfig>('/api/ai/config') });
  const configured = config.data?.apiKey.configured;
  return (
    <Stack>
      <Title order={1} size="h2">
        AI
      </Title>
      {configured === false ? <NotConfigured /> : null}
      <ProviderKeyForm />
      <Divider />
      <AllowedModels configured={configured === true} />
      <Divider />
      <UsagePanel />
    </Stack>
  );
}
