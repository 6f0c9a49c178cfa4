// AI: the provider key (write-only), the model allow-list, and usage per caller and day.
import { Divider, Stack, Title } from '@mantine/core';
import { AllowedModels } from './AllowedModels';
import { ProviderKeyForm } from './ProviderKeyForm';
import { UsagePanel } from './UsagePanel';

export default function AiScreen() {
  return (
    <Stack>
      <Title order={1} size="h2">
        AI
      </Title>
      <ProviderKeyForm />
      <Divider />
      <AllowedModels />
      <Divider />
      <UsagePanel />
    </Stack>
  );
}
