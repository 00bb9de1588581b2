// `recdeck run`'s alarms: the flags, the settings file (--alarm-settings, JSON or YAML, checked by the
// AlarmSettings schema; no profile needed) and the wiring: the alarm engine over the bridge, its events
// to the log, the audit file and the webhooks. startAlarms returns what the server needs and the stop.
import { readFileSync } from 'node:fs';
import { describeIssues } from '../api/issues.js';
import { messageOf } from '../api/errors.js';
import { alarmAuditRecord, type AlarmAuditRecord } from '../engine/alarms/alarm.js';
import { AlarmMonitor, type AlarmSource } from '../engine/alarms/alarm-monitor.js';
import { AlarmSettings, type AlarmSettingsInput } from '../engine/alarms/alarm-settings.js';
import type { Logger } from '../engine/log.js';
import { AlarmWebhooks } from '../remote/alarm-webhooks.js';
import { yamlLibrary } from '../profiles/yaml-library.js';
import { wholeNumber, type FlagTable } from './flags.js';
import { readSecretFile } from './secret-file.js';
import { UsageError } from './usage-error.js';

export const ALARM_FLAGS = {
  'alarm-settings': { type: 'string', value: 'FILE', description: 'alarm thresholds (JSON or YAML: raisePolls, clearPolls, dropsPerMinute, bufferedFrames, dialogWaitS, off, webhook, …; see the README)', shownDefault: 'the defaults' },
  'alarm-raise-polls': { type: 'string', value: 'N', description: 'raise an alarm after its condition held N polls in a row', shownDefault: '3' },
  'alarm-clear-polls': { type: 'string', value: 'N', description: 'clear it after N polls in a row without it', shownDefault: '5' },
  'alarm-dialog-s': { type: 'string', value: 'S', description: 'alarm when a recorder dialog waits longer than S seconds', shownDefault: '10' },
  'alarm-webhook': { type: 'string', multiple: true, default: [], value: 'URL', description: 'POST every alarm raise, ack and clear as JSON to URL (repeatable)' },
  'alarm-webhook-secret-file': { type: 'string', value: 'FILE', description: 'sign webhook bodies with HMAC-SHA256 of this secret (header X-Recdeck-Signature: sha256=<hex>)' },
} satisfies FlagTable;

export interface AlarmSetup {
  settings: AlarmSettings;
  webhooks: string[];
  secret: string | null;
}

interface AlarmFlagValues {
  'alarm-settings'?: string | undefined;
  'alarm-raise-polls'?: string | undefined;
  'alarm-clear-polls'?: string | undefined;
  'alarm-dialog-s'?: string | undefined;
  'alarm-webhook': string[];
  'alarm-webhook-secret-file'?: string | undefined;
}

/** The settings file's values, then the flags' over them; every problem a usage error naming the flag or the field. */
export function alarmSetup(values: AlarmFlagValues): AlarmSetup {
  const input: AlarmSettingsInput = values['alarm-settings'] === undefined ? {} : readSettingsFile(values['alarm-settings']);
  const flag = (name: keyof AlarmFlagValues, min: number, max: number) => {
    const text = values[name];
    return typeof text === 'string' ? wholeNumber(`--${name}`, text, min, max) : undefined;
  };
  const overrides = { raisePolls: flag('alarm-raise-polls', 1, 1000), clearPolls: flag('alarm-clear-polls', 1, 1000), dialogWaitS: flag('alarm-dialog-s', 0, 86_400) };
  const merged = { ...input, ...Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)) };
  const parsed = AlarmSettings.safeParse(merged, { reportInput: true });
  if (!parsed.success) throw new UsageError(`alarm settings: ${describeIssues(parsed.error)}`);
  for (const url of values['alarm-webhook']) {
    let protocol: string;
    try {
      protocol = new URL(url).protocol;
    } catch {
      throw new UsageError(`--alarm-webhook: expected an http:// or https:// URL, got ${JSON.stringify(url)}`);
    }
    if (protocol !== 'http:' && protocol !== 'https:') throw new UsageError(`--alarm-webhook: expected an http:// or https:// URL, got ${JSON.stringify(url)}`);
  }
  const secretFile = values['alarm-webhook-secret-file'];
  return { settings: parsed.data, webhooks: values['alarm-webhook'], secret: secretFile === undefined ? null : readSecretFile(secretFile, '--alarm-webhook-secret-file') };
}

function readSettingsFile(file: string): AlarmSettingsInput {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`--alarm-settings: cannot read ${file}: ${messageOf(error)}`);
  }
  try {
    return (yamlLibrary().parse(text) ?? {}) as AlarmSettingsInput; // JSON is YAML; the schema checks what it holds
  } catch (error) {
    throw new UsageError(`--alarm-settings: ${file} is neither JSON nor YAML: ${messageOf(error).split('\n')[0]}`);
  }
}

export interface RunningAlarms {
  monitor: AlarmMonitor;
  webhooks: AlarmWebhooks;
  stop: () => void;
}

/** Starts the alarm engine over the bridge, delivering its events to the log, the audit file and the webhooks. */
export function startAlarms(bridge: AlarmSource, setup: AlarmSetup, log: Logger, audit: { write: (record: AlarmAuditRecord) => void } | null): RunningAlarms {
  const monitor = new AlarmMonitor(bridge, setup.settings);
  const webhooks = new AlarmWebhooks({ urls: setup.webhooks, secret: setup.secret, settings: setup.settings.webhook, clock: bridge.time, log });
  const subscription = monitor.events$.subscribe((event) => {
    const { alarm } = event;
    const line = `alarm ${event.state} (${alarm.severity}, ${alarm.kind}): ${alarm.text}${event.state === 'acked' ? ` (acknowledged by ${alarm.ackedBy ?? 'someone'})` : ''}`;
    if (event.state === 'raised') log.warn(line);
    else log.info(line);
    audit?.write(alarmAuditRecord(event));
    webhooks.deliver(event);
  });
  monitor.start();
  return {
    monitor,
    webhooks,
    stop: () => {
      monitor.stop();
      subscription.unsubscribe();
      webhooks.close();
    },
  };
}
