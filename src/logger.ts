import pino, { type Logger } from 'pino';
import type { Config } from './config.js';
import { redactUrl } from './lib/redact.js';

/** Serializers for any log line that carries a request: never the raw URL. */
const requestSerializers = {
  req: (req: { method?: string; url?: string }) => ({ method: req.method, url: redactUrl(req.url ?? '') }),
};

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
      serializers: { ...requestSerializers, err: pino.stdSerializers.err },
      redact: {
        // API keys, and the SMTP URL (it may carry the password) should a config object ever be logged.
        paths: ['apiKey', 'api_key', '*.apiKey', '*.api_key', 'smtpUrl', '*.smtpUrl'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
