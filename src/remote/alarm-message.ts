// The alarms as the web page is sent them over its WebSocket: one message, `{ type: "alarms", active }`
// (deck-protocol.ts: AlarmsMessage), with every active alarm (worst first) in the wire form of GET
// /alarms and its kind in the alarms key's words. It is sent when a page connects and after every
// raise, acknowledgement and clear, whole each time (a handful of alarms, and a page that missed one
// message is right again with the next). The page derives its banner, its sound on a new raise and its notification from it; the alarm engine keeps the alarms.
import type { AlarmMonitor } from '../engine/alarms/alarm-monitor.js';
import { alarmWire } from '../engine/alarms/alarm.js';
import { ALARM_WORDS } from '../engine/alarms/alarm-picture.js';
import type { AlarmsMessage } from './deck-protocol.js';

/** The message for the alarm book now. */
export function alarmsMessage(monitor: AlarmMonitor): AlarmsMessage {
  return { type: 'alarms', active: monitor.active().map((alarm) => ({ ...alarmWire(alarm), word: ALARM_WORDS[alarm.kind] })) };
}
