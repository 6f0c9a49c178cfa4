// A real SMTP server on loopback (smtp-server) that keeps every message Plinth sends, so tests
// read codes and links out of actual emails.
import { SMTPServer } from 'smtp-server';

export interface CapturedEmail {
  to: string[];
  /** The From header as sent. */
  from: string;
  subject: string;
  /** The decoded text of every part (plain and HTML). */
  body: string;
  /** The decoded text/plain part ('' when there is none). */
  text: string;
  /** The decoded text/html part ('' when there is none). */
  html: string;
  /** The credentials the sender authenticated with, if it did. */
  auth?: { username: string; password: string };
  raw: string;
}

export interface SmtpPeer {
  port: number;
  /** SMTP_* settings that point Plinth at this peer. */
  env: Record<string, string>;
  messages: CapturedEmail[];
  /** The next message to `address` not yet taken (waits for it to arrive). */
  nextMessageTo(address: string): Promise<CapturedEmail>;
  /** Messages to `address` that arrived and were not taken. */
  pendingFor(address: string): CapturedEmail[];
  /** Make the next `count` deliveries fail with a 4xx reply. */
  failNext(count?: number): void;
  /**
   * Holds every delivery (the message is received but not answered) until the returned release
   * is called: while held, a sender waiting for its email to be accepted cannot go on.
   */
  hold(): () => void;
  /** Resolves when a message to `address` has reached the peer while deliveries are held. */
  heldMessageTo(address: string): Promise<void>;
  close(): Promise<void>;
}

const decodeQuotedPrintable = (text: string) =>
  Buffer.from(
    text
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    'latin1',
  ).toString('utf8');

interface DecodedPart {
  contentType: string;
  content: string;
}

function decodeParts(raw: string): DecodedPart[] {
  const [, ...sections] = raw.split(/\r?\n--[^\r\n]+/);
  const parts = sections.length > 0 ? sections : [raw];
  return parts.map((part) => {
    const [head = '', ...rest] = part.split(/\r?\n\r?\n/);
    const body = rest.join('\n\n');
    const contentType = /content-type:\s*([\w/+.-]+)/i.exec(head)?.[1]?.toLowerCase() ?? '';
    const encoding = /content-transfer-encoding:\s*([\w-]+)/i.exec(head)?.[1]?.toLowerCase();
    if (encoding === 'base64')
      return { contentType, content: Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8') };
    if (encoding === 'quoted-printable') return { contentType, content: decodeQuotedPrintable(body) };
    return { contentType, content: body };
  });
}

function decodeSubject(raw: string): string {
  const header = /^subject:\s*(.*(?:\r?\n[ \t].*)*)/im.exec(raw)?.[1] ?? '';
  return header
    .replace(/\r?\n[ \t]/g, ' ')
    .replace(/=\?utf-8\?([bq])\?([^?]*)\?=/gi, (_m, kind: string, text: string) =>
      kind.toLowerCase() === 'b'
        ? Buffer.from(text, 'base64').toString('utf8')
        : decodeQuotedPrintable(text.replace(/_/g, ' ')),
    )
    .replace(/\?=\s+=\?/g, '');
}

export async function startSmtpPeer(): Promise<SmtpPeer> {
  const messages: CapturedEmail[] = [];
  const taken = new Set<CapturedEmail>();
  const waiters: { address: string; resolve: (m: CapturedEmail) => void }[] = [];
  let failures = 0;
  let gate: Promise<void> | undefined;
  const heldWaiters: { address: string; resolve: () => void }[] = [];

  const deliver = (message: CapturedEmail) => {
    messages.push(message);
    const waiter = waiters.find((w) => message.to.includes(w.address));
    if (waiter) {
      waiters.splice(waiters.indexOf(waiter), 1);
      taken.add(message);
      waiter.resolve(message);
    }
  };

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    // Any credentials are accepted and kept with the message, so tests see what Plinth sent.
    onAuth(auth, _session, callback) {
      callback(null, { user: { username: auth.username ?? '', password: auth.password ?? '' } });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', async () => {
        if (gate) {
          const rcpt = session.envelope.rcptTo.map((r) => r.address.toLowerCase());
          for (const w of heldWaiters.filter((h) => rcpt.includes(h.address))) {
            heldWaiters.splice(heldWaiters.indexOf(w), 1);
            w.resolve();
          }
          await gate;
        }
        if (failures > 0) {
          failures--;
          const error = Object.assign(new Error('Mailbox temporarily unavailable'), { responseCode: 451 });
          callback(error);
          return;
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        const parts = decodeParts(raw);
        const partOf = (type: string) => parts.find((p) => p.contentType === type)?.content.trim() ?? '';
        deliver({
          to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          from: /^from:\s*(.*)$/im.exec(raw)?.[1]?.trim() ?? '',
          subject: decodeSubject(raw),
          body: parts.map((p) => p.content).join('\n'),
          text: partOf('text/plain'),
          html: partOf('text/html'),
          auth: session.user as CapturedEmail['auth'],
          raw,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;

  return {
    port,
    env: {
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(port),
      SMTP_SENDER_EMAIL: 'no-reply@plinth.test',
      SMTP_SENDER_NAME: 'Plinth Test',
    },
    messages,
    nextMessageTo(address) {
      const wanted = address.toLowerCase();
      const ready = messages.find((m) => !taken.has(m) && m.to.includes(wanted));
      if (ready) {
        taken.add(ready);
        return Promise.resolve(ready);
      }
      return new Promise((resolve) => waiters.push({ address: wanted, resolve }));
    },
    pendingFor: (address) => messages.filter((m) => !taken.has(m) && m.to.includes(address.toLowerCase())),
    failNext(count = 1) {
      failures += count;
    },
    heldMessageTo(address) {
      return new Promise<void>((resolve) => heldWaiters.push({ address: address.toLowerCase(), resolve }));
    },
    hold() {
      let release!: () => void;
      gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      return () => {
        gate = undefined;
        release();
      };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The 6-digit code in an email. */
export function codeFrom(email: CapturedEmail): string {
  const code = /\b(\d{6})\b/.exec(email.body)?.[1];
  if (!code) throw new Error(`no code in email: ${email.body}`);
  return code;
}

/** The first link to Plinth's API in an email. */
export function linkFrom(email: CapturedEmail): URL {
  const link = /https?:\/\/[^\s"<>]+\/api\/auth\/email\/[^\s"<>]+/.exec(email.body)?.[0];
  if (!link) throw new Error(`no link in email: ${email.body}`);
  return new URL(link.replace(/&amp;/g, '&'));
}
