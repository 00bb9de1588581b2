// GET /alarms (the active alarms, worst first, and the last cleared ones) and POST /alarms/{id}/ack. The
// server admits them as it admits presses (the password or a session; an acknowledgement from the same
// site only): an ack changes what keys and pages show, so it is a control like any other. An alarm of a
// recorder followed on the bus is acknowledged by its poller (bus-alarm-ack.ts): the answer waits for it.
import type { AlarmMonitor } from '../engine/alarms/alarm-monitor.js';
import { alarmWire } from '../engine/alarms/alarm.js';
import type { AckRefusal } from '../engine/alarms/followed-alarms.js';
import { ApiError, type ApiAnswer } from './api.js';

const json = (value: unknown, status = 200): ApiAnswer => ({ status, type: 'application/json; charset=utf-8', body: JSON.stringify(value) });

/** A followed alarm's acknowledgement not done where it is judged, as HTTP says it. */
const REFUSAL_STATUS: Record<AckRefusal, number> = {
  'not-active': 404,
  /** Raised again since the raise shown: look again. */
  'raised-again': 409,
  'not-allowed': 403,
  /** Not sent, or refused by the poller (gone, the lease moved): it did not run. */
  'not-run': 503,
  /** No answer by its deadline: it may have run (the list says, as it comes back). */
  'no-answer': 504,
};

/** The answer to /alarms…, or null when the path is not one of them. `who` names the client for the audit. */
export async function answerAlarms(method: string, parts: readonly string[], monitor: AlarmMonitor, who: string): Promise<ApiAnswer | null> {
  if (parts[0] !== 'alarms') return null;
  if (parts.length === 1) {
    if (method !== 'GET') throw new ApiError(405, `method ${method} not allowed here: expected GET`);
    return json(monitor.list());
  }
  if (parts.length === 3 && parts[2] === 'ack') {
    if (method !== 'POST') throw new ApiError(405, `method ${method} not allowed here: expected POST`);
    const result = await monitor.ack(parts[1] as string, who);
    if (!result.ok) throw new ApiError(result.refusal === undefined ? 404 : REFUSAL_STATUS[result.refusal], result.reason);
    return json({ ok: true, alarm: alarmWire(result.alarm) });
  }
  throw new ApiError(404, `no route ${method} /${parts.join('/')}: expected GET /alarms or POST /alarms/{id}/ack`);
}
