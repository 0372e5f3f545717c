import pino, { type Logger } from 'pino';
import type { Config } from './config.js';
import { requestSerializers } from './http/logging.js';

/** JSON lines on stderr, so that stdout stays for what a command prints (keys, JSON output). */
export function createLogger(
  level: Config['logLevel'],
  destination: pino.DestinationStream = pino.destination(2),
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
