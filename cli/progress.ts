// A progress bar on stderr for transfers over 1 MB: redrawn in place on a terminal, and otherwise
// one line per tenth so logs of scripted runs stay short.
import { Transform } from 'node:stream';

export const PROGRESS_THRESHOLD = 1024 * 1024;
const WIDTH = 30;

const mb = (bytes: number) => (bytes / (1024 * 1024)).toFixed(1);

/** A pass-through stream that draws the bar as bytes go by (no bar at or under the threshold). */
export function progressStream(label: string, total: number, write: (text: string) => void, tty: boolean): Transform {
  let done = 0;
  let lastTenth = -1;
  const draw = () => {
    const ratio = total === 0 ? 1 : Math.min(1, done / total);
    const tenth = Math.floor(ratio * 10);
    if (!tty && tenth === lastTenth) return;
    lastTenth = tenth;
    const filled = Math.round(ratio * WIDTH);
    const line = `${label} [${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${Math.floor(ratio * 100)}% ${mb(done)}/${mb(total)} MB`;
    write(tty ? `\r${line}` : `${line}\n`);
  };
  const show = total > PROGRESS_THRESHOLD;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      done += chunk.length;
      if (show) draw();
      callback(null, chunk);
    },
    flush(callback) {
      if (show && tty) write('\n');
      callback();
    },
  });
}
