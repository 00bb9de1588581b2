// `--audit-file FILE`: every command the bridge runs, appended as one JSON line, the file rotated by
// size (FILE.1 is the newest full one, up to FILE.<keep>). Lines are written in order, one at a time;
// each append opens the file anew, so an outside logrotate that moves it is followed too.
import { appendFile, rename, stat } from 'node:fs/promises';
import { messageOf } from '../api/errors.js';
import { SaidOnce } from '../engine/log-limit.js';
import type { CommandRecord, Logger } from '../engine/log.js';
import type { AlarmAuditRecord } from '../engine/alarms/alarm.js';
import type { ProfileEditRecord } from '../remote/profiles-api.js';
import { UsageError } from './usage-error.js';

export interface AuditFileOptions {
  path: string;
  /** A file reaching this size is rotated before the next line. */
  maxBytes: number;
  /** Rotated files kept beside the current one (default 5). */
  keep?: number;
  log: Logger;
}

export class AuditFile {
  private size: number;
  private queue: Promise<void> = Promise.resolve();
  private readonly problems = new SaidOnce();

  private constructor(
    private readonly options: AuditFileOptions & { keep: number },
    size: number,
  ) {
    this.size = size;
  }

  /** Opens (creating) the file at start, so a path that cannot be written is an error before anything runs. */
  static async open(options: AuditFileOptions): Promise<AuditFile> {
    try {
      await appendFile(options.path, '');
      const { size } = await stat(options.path);
      return new AuditFile({ keep: 5, ...options }, size);
    } catch (error) {
      throw new UsageError(`--audit-file: cannot write ${options.path}: ${messageOf(error)}`);
    }
  }

  /** A command the bridge ran, a profile saved from the editor, or an alarm raised, acknowledged or cleared. */
  write(record: CommandRecord | ProfileEditRecord | AlarmAuditRecord): void {
    const line = `${JSON.stringify({ time: new Date(record.at).toISOString(), ...record })}\n`;
    this.queue = this.queue.then(() => this.append(line));
  }

  /** Waits for the lines already given to be written. */
  async close(): Promise<void> {
    await this.queue;
  }

  private async append(line: string): Promise<void> {
    const bytes = Buffer.byteLength(line);
    try {
      if (this.size > 0 && this.size + bytes > this.options.maxBytes) await this.rotate();
      await appendFile(this.options.path, line);
      this.size += bytes;
      this.problems.forget('append');
    } catch (error) {
      // The bridge keeps running; the operator hears of each new problem once, not once per command.
      const problem = `audit file ${this.options.path}: a command was not recorded: ${messageOf(error)}`;
      this.problems.say('append', problem, (message) => this.options.log.error(message));
    }
  }

  private async rotate(): Promise<void> {
    const { path, keep } = this.options;
    for (let i = keep - 1; i >= 1; i--) await renameIfThere(`${path}.${i}`, `${path}.${i + 1}`);
    await renameIfThere(path, `${path}.1`); // gone already when an outside logrotate moved it
    this.size = 0;
  }
}

async function renameIfThere(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOENT') throw error;
  }
}
