// GET /alarms (the active alarms, worst first, and the last cleared ones) and POST /alarms/{id}/ack. The
// server admits them as it admits presses (the password or a session; an acknowledgement from the same
// site only): an ack changes what keys and pages show, so it is a control like any other.
import type { AlarmMonitor } from '../engine/alarms/alarm-monitor.js';
import { alarmWire } from '../engine/alarms/alarm.js';
import { ApiError, type ApiAnswer } from './api.js';

const json = (value: unknown, status = 200): ApiAnswer => ({ status, type: 'application/json; charset=utf-8', body: JSON.stringify(value) });

/** The answer to /alarms…, or null when the path is not one of them. `who` names the client for the audit. */
export function answerAlarms(method: string, parts: readonly string[], monitor: AlarmMonitor, who: string): ApiAnswer | null {
  if (parts[0] !== 'alarms') return null;
  if (parts.length === 1) {
    if (method !== 'GET') throw new ApiError(405, `method ${method} not allowed here: expected GET`);
    return json(monitor.list());
  }
  if (parts.length === 3 && parts[2] === 'ack') {
    if (method !== 'POST') throw new ApiError(405, `method ${method} not allowed here: expected POST`);
    const result = monitor.ack(parts[1] as string, who);
    // 409: an alarm of a recorder followed on the bus, acknowledged only where its poller judges it.
    if (!result.ok) throw new ApiError(result.judgedElsewhere ? 409 : 404, result.reason);
    return json({ ok: true, alarm: alarmWire(result.alarm) });
  }
  throw new ApiError(404, `no route ${method} /${parts.join('/')}: expected GET /alarms or POST /alarms/{id}/ack`);
}
