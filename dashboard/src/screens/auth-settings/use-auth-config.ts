// The auth configuration as a query, and saving a change to it (the cache takes the answer).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../../api/context';
import { type AuthConfig, authSettingsApi } from './auth-settings-api';

export function useAuthConfig() {
  const api = authSettingsApi(useApi());
  const queries = useQueryClient();
  const config = useQuery<AuthConfig>({ queryKey: ['auth-config'], queryFn: api.config });
  const save = useMutation({
    mutationFn: (changes: Partial<AuthConfig>) => api.updateConfig(changes),
    onSuccess: (saved) => queries.setQueryData(['auth-config'], saved),
  });
  return { config, save };
}
