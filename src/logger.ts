import pino, { type Logger } from 'pino';
import type { Config } from './config.js';
import { redactRequestUrl, redactText, redactUrl } from './lib/redact.js';

/**
 * Serializers for the fields that may carry a URL, and so a secret: every one goes through the one rule
 * of lib/redact.ts. `url` (a request's, a feed's, a page's, the base URL), `req`, and errors, whose
 * messages, stacks and other fields (a cause, an `input`) may quote URLs.
 */
const serializers = {
  req: (req: { method?: string; url?: string }) => ({
    method: req.method,
    url: redactRequestUrl(req.url ?? ''),
  }),
  url: (url: unknown) => (typeof url === 'string' ? redactUrl(url) : url),
  err: (err: unknown) => redactFields(err instanceof Error ? pino.stdSerializers.err(err) : err),
  error: (error: unknown) => redactFields(error instanceof Error ? pino.stdSerializers.err(error) : error),
};

/** Every string in a serialized error (nested causes and aggregated errors too) with its URLs redacted. */
function redactFields(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value);
  if (typeof value !== 'object' || value === null || depth > 4) return value;
  if (Array.isArray(value)) return value.map((v: unknown) => redactFields(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = redactFields(v, depth + 1);
  return out;
}

/** Lines wait until this many bytes are buffered, or at most FLUSH_MS. */
const BUFFER_BYTES = 4096;
const FLUSH_MS = 200;

/**
 * stderr, buffered: a busy server writes its log lines a few kilobytes at a time instead of making a
 * system call per request, and a quiet one writes them at most FLUSH_MS late. pino flushes what is
 * buffered when the process exits (normally, by process.exit or after an uncaught error); only a SIGKILL
 * can lose the last lines.
 */
function bufferedStderr(): pino.DestinationStream {
  const destination = pino.destination({ dest: 2, sync: false, minLength: BUFFER_BYTES });
  setInterval(() => destination.flush(), FLUSH_MS).unref();
  return destination;
}

/** JSON lines on stderr, so that stdout stays for what a command prints (keys, JSON output). */
export function createLogger(
  level: Config['logLevel'],
  destination: pino.DestinationStream = bufferedStderr(),
): Logger {
  return pino(
    {
      level,
      base: { service: 'tidings' },
      serializers,
      redact: {
        // API keys, and the SMTP URL (it may carry the password) should a config object ever be logged.
        paths: ['apiKey', 'api_key', '*.apiKey', '*.api_key', 'smtpUrl', '*.smtpUrl'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
