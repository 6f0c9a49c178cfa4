// A form's submit handler that keeps the page where it is and runs the action instead.
import type { FormEvent } from 'react';

export const onSubmit = (run: () => void) => (event: FormEvent) => {
  event.preventDefault();
  run();
};
