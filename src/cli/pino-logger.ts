// The engine's Logger, written through pino: JSON lines for integrators (log shippers read them as they
// are), or pino-pretty's readable lines for an operator's terminal. pino brings levels, a fast
// synchronous writer and `redact`, which censors token and password fields wherever a structured
// value is logged; a hand-written logger had none of these.
import { createRequire } from 'node:module';
import { pino, type Logger as Pino } from 'pino';
import type { PinoPretty } from 'pino-pretty';
import type { Logger } from '../engine/log.js';
import { escapeControl } from './log-line.js';
import type { LogFormat, LogLevel } from './log-options.js';

/** Fields that hold secrets, wherever they appear in a logged value. */
export const REDACTED_PATHS = ['token', '*.token', 'password', '*.password', 'authorization', '*.authorization', '*.headers.authorization', '*.headers.cookie'];

export interface LogOptions {
  format: LogFormat;
  level: LogLevel;
  /** Where lines go (default stderr). */
  stream?: NodeJS.WritableStream;
}

export function createPino({ format, level, stream = process.stderr }: LogOptions): Pino {
  const options = { level, base: undefined, redact: { paths: REDACTED_PATHS, censor: '***' } };
  if (format === 'json') return pino(options, stream);
  const colorize = (stream as NodeJS.WriteStream).isTTY === true;
  return pino(options, prettyStream()({ destination: stream, sync: true, colorize, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }));
}

/**
 * pino-pretty, required only for the readable format: a service logging JSON (and every test that spawns
 * `recdeck run --log-format json`) does not load its 29 files (0.1 s of CPU at start, `node -e
 * "import('pino-pretty')"`). Required, not imported: the logger is made synchronously, at the start.
 */
function prettyStream(): typeof PinoPretty {
  return createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
}

/** The engine's Logger over pino; each message escaped so that one message is one line. */
export function pinoLogger(options: LogOptions): Logger {
  const logger = createPino(options);
  return {
    info: (message) => logger.info(escapeControl(message)),
    warn: (message) => logger.warn(escapeControl(message)),
    error: (message) => logger.error(escapeControl(message)),
    debug: (message) => logger.debug(escapeControl(message)),
  };
}
