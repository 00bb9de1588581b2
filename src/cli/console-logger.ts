import type { Logger } from '../engine/log.js';

/** Human-readable lines with the time, for operators watching a terminal. */
export function consoleLogger(stream: NodeJS.WritableStream = process.stderr): Logger {
  const line = (level: string) => (message: string) => {
    const time = new Date().toISOString().slice(11, 23);
    stream.write(`${time} ${level} ${message}\n`);
  };
  return { info: line('info'), warn: line('warn'), error: line('error') };
}
