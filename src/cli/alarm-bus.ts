// Alarms on the state bus (issue 36), wired for `recdeck run --mqtt`: each recorder this process polls
// for the bus has its alarms published while it holds the lease, and runs its panels' commands through
// the bridge's link (so a stop a panel commands is recdeck's own: no unexpected-stop); each recorder it
// follows has its alarms taken from its poller and merged into this process's alarm engine, and its
// acknowledgements sent there (bus-alarm-ack.ts).
import type { AlarmMonitor } from '../engine/alarms/alarm-monitor.js';
import type { Bridge } from '../engine/bridge.js';
import type { Logger } from '../engine/log.js';
import { BusAlarmPublisher, BusAlarms } from '../bus/bus-alarms.js';
import { BusPoller } from '../bus/bus-poller.js';
import { BusRecorder } from '../bus/bus-recorder.js';
import type { BusRecorders } from './bus-setup.js';

/** Starts the alarms' bus ends; returns their stop (before the bus closes). */
export function startBusAlarms(bus: Pick<BusRecorders, 'recorders' | 'connection' | 'authority'>, bridge: Bridge, monitor: AlarmMonitor | null, log: Logger): () => void {
  const pollers = bus.recorders.flatMap(({ link }) => (link instanceof BusPoller ? [link] : []));
  const followed = bus.recorders.flatMap(({ link }) => (link instanceof BusRecorder ? [link] : []));
  for (const poller of pollers) {
    const link = bridge.commandLink(poller.name);
    if (link) poller.runCommandsThrough(link);
  }
  if (monitor === null) return () => undefined;
  // Panels' acknowledgements of a recorder's alarms run in the engine that judges them (bus-alarm-ack.ts).
  for (const poller of pollers) poller.ackAlarmsIn(monitor);
  const options = { authority: bus.authority, clock: bridge.time, log };
  const publisher = new BusAlarmPublisher(monitor, pollers, bus.connection, options);
  const alarms = followed.length === 0 ? null : new BusAlarms(followed, bus.connection, options);
  if (alarms) monitor.follow(alarms);
  alarms?.start();
  publisher.start();
  return () => {
    publisher.stop();
    alarms?.stop();
  };
}
