// Input descriptions in the text colour: Mantine's dimmed default fails WCAG AA contrast (axe).
// Spread into an input that has a `description`.
export const readableDescription = { descriptionProps: { c: 'var(--mantine-color-text)' } } as const;
