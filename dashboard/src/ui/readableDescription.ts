// Mantine's input descriptions are "dimmed" (below WCAG AA contrast on small text, axe-core flags
// them): inputs with a description pass these styles to show it in the text colour.
export const readableDescription = { description: { color: 'var(--mantine-color-text)' } };
