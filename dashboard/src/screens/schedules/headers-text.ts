// Request headers as the admin types them: one "Name: value" per line.

/** The headers of the text, or the first line that is not "Name: value". */
export function parseHeaderLines(text: string): { headers: Record<string, string> } | { badLine: string } {
  const headers: Record<string, string> = {};
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const colon = line.indexOf(':');
    if (colon <= 0) return { badLine: line };
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return { headers };
}
