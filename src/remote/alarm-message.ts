// The alarms as the web page is sent them over its WebSocket: one message, `{ type: "alarms", active }`,
// with every active alarm (worst first) in the wire form of GET /alarms. It is sent when a page connects
// and after every raise, acknowledgement and clear, whole each time (a handful of alarms, and a page that
// missed one message is right again with the next). The page derives its banner, its sound on a new raise
// and its notification from it; the alarm engine keeps the alarms.
import * as z from 'zod';
import type { AlarmMonitor } from '../engine/alarms/alarm-monitor.js';
import { AlarmWire, alarmWire } from '../engine/alarms/alarm.js';

export const AlarmsMessage = z.strictObject({
  type: z.literal('alarms'),
  /** Active alarms, worst first (raised and acknowledged alike). */
  active: z.array(AlarmWire),
});
export type AlarmsMessage = z.output<typeof AlarmsMessage>;

/** The message for the alarm book now, as text for the socket. */
export function alarmsMessage(monitor: AlarmMonitor): string {
  const message: AlarmsMessage = { type: 'alarms', active: monitor.active().map(alarmWire) };
  return JSON.stringify(message);
}
