// Reads a Markdown tutorial into the steps a test replays: files to write (a block after a
// "**File:** `path`" line), shell blocks to run (after a "**Run:**" line) and the output a run must
// print (a `text` block right after a run block). Other blocks are shown only.

export type Step =
  | { kind: 'file'; path: string; content: string; line: number }
  | { kind: 'run'; script: string; expectedOutput?: string; line: number };

export interface Section {
  title: string;
  steps: Step[];
}

const FENCE = /^```(\S*)/;

export function readTutorial(markdown: string): Section[] {
  const lines = markdown.split('\n');
  const sections: Section[] = [];
  let marker: { kind: 'file'; path: string } | { kind: 'run' } | undefined;
  let lastWasRun = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('## ')) {
      sections.push({ title: line.slice(3).trim(), steps: [] });
      marker = undefined;
      lastWasRun = false;
      continue;
    }
    const file = /^\*\*File:\*\* `([^`]+)`\s*$/.exec(line);
    if (file) {
      marker = { kind: 'file', path: file[1]! };
      lastWasRun = false;
      continue;
    }
    if (/^\*\*Run:\*\*\s*$/.test(line)) {
      marker = { kind: 'run' };
      lastWasRun = false;
      continue;
    }
    const fence = FENCE.exec(line);
    if (!fence) {
      if (line.trim() !== '') {
        lastWasRun = false;
        // A marker applies to the block right after it (blank lines between are fine).
        marker = undefined;
      }
      continue;
    }
    const start = i + 1;
    let end = start;
    while (end < lines.length && !lines[end]!.startsWith('```')) end++;
    const body = `${lines.slice(start, end).join('\n')}\n`;
    i = end;
    const steps = sections.at(-1)?.steps;
    if (!steps) throw new Error(`line ${start}: a code block before the first section`);
    const previous = steps.at(-1);
    if (marker?.kind === 'file') steps.push({ kind: 'file', path: marker.path, content: body, line: start });
    else if (marker?.kind === 'run') steps.push({ kind: 'run', script: body, line: start });
    else if (fence[1] === 'text' && lastWasRun && previous?.kind === 'run') previous.expectedOutput = body;
    lastWasRun = marker?.kind === 'run';
    marker = undefined;
  }
  return sections;
}
