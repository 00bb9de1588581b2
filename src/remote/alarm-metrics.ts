// The alarms and the recorder figures a studio's dashboards and alert rules want, read when scraped:
// recdeck_alarm_active{kind,recorder,channel,severity} (1 per active alarm; channel "" for a whole
// recorder), channels recording, frames dropped, and disks' time left. deploy/prometheus/ and
// deploy/grafana/ use them.
import { Gauge, Registry } from 'prom-client';
import type { AlarmMonitor } from '../engine/alarms/alarm-monitor.js';
import type { Bridge } from '../engine/bridge.js';

export function alarmMetrics(monitor: AlarmMonitor, bridge: Bridge): Registry {
  const registry = new Registry();
  const registers = [registry];
  new Gauge({
    name: 'recdeck_alarm_active',
    help: 'An active alarm (1), by kind, recorder, channel (1-based; empty for the whole recorder) and severity; acknowledged ones too (see recdeck_alarm_unacknowledged)',
    labelNames: ['kind', 'recorder', 'channel', 'severity'] as const,
    registers,
    collect() {
      this.reset();
      // Only the alarms judged here: a recorder followed on the bus has its alarms exported by its poller, not counted twice.
      for (const a of monitor.activeJudgedHere()) this.set({ kind: a.kind, recorder: a.recorder, channel: a.channel === null ? '' : String(a.channel), severity: a.severity }, 1);
    },
  });
  new Gauge({
    name: 'recdeck_alarm_unacknowledged',
    help: 'Active alarms nobody has acknowledged yet, by severity',
    labelNames: ['severity'] as const,
    registers,
    collect() {
      this.reset();
      for (const severity of ['warning', 'critical'] as const) this.set({ severity }, monitor.activeJudgedHere().filter((a) => a.severity === severity && a.ackedAt === null).length);
    },
  });
  const channelGauge = (name: string, help: string, value: (c: { IsRecording: boolean; RecordingDrops: number; RecordingBreaks: number }) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['recorder', 'channel'] as const,
      registers,
      collect() {
        this.reset();
        for (const s of bridge.recorderStates()) for (const c of s.channels ?? []) this.set({ recorder: s.name, channel: String(c.Index + 1) }, value(c));
      },
    });
  channelGauge('recdeck_channel_recording', "1 while the channel records (as last read; see recdeck_recorder_data_age_seconds for the read's age)", (c) => (c.IsRecording ? 1 : 0));
  channelGauge('recdeck_channel_dropped_frames', "Frames dropped in the channel's take, as the recorder counts them", (c) => c.RecordingDrops);
  channelGauge('recdeck_channel_breaks', "Breaks in the channel's take, as the recorder counts them", (c) => c.RecordingBreaks);
  new Gauge({
    name: 'recdeck_disk_seconds_left',
    help: 'Seconds until a recording disk is full at the rate it fills (only while the rate is steady)',
    labelNames: ['recorder', 'disk'] as const,
    registers,
    collect() {
      this.reset();
      for (const s of bridge.recorderStates()) for (const d of bridge.diskTimesLeft(s.name)) if (d.secondsLeft !== null) this.set({ recorder: s.name, disk: d.disk }, d.secondsLeft);
    },
  });
  return registry;
}
