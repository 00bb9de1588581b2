// The log's formats and levels, as `recdeck run` takes them: kept apart from the pino logger so that
// the command's flag table (read by --help) does not load pino.
export const LOG_FORMATS = ['pretty', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
