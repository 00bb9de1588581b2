// The recorder's schedule: on, off, a toggle that reads it at the press, and its times and type.
import * as z from 'zod';
import { ScheduleWrite } from '../../api/app.js';
import { switchedEffect } from '../command-effect.js';
import { decideFromLive, definedFields, send } from '../command-plan.js';
import { recorderAction, uncheckable } from './entry.js';
import { plainAction, recorder, someField } from './parameters.js';

const scheduleShow = () => 'schedule' as const;
const scheduleEffect = (enabled: boolean) => switchedEffect('schedule', 'the schedule', enabled);

export const SCHEDULE = [
  recorderAction({
    schema: plainAction('schedule-on', 'Enable the schedule (its times must be set)'),
    example: { action: 'schedule-on' },
    plan: () => send({ method: 'setSchedule', args: [{ IsEnabled: true }] }, true),
    expectedEffect: () => scheduleEffect(true),
    show: scheduleShow,
  }),
  recorderAction({
    schema: plainAction('schedule-off', 'Disable the schedule'),
    example: { action: 'schedule-off' },
    plan: () => send({ method: 'setSchedule', args: [{ IsEnabled: false }] }, true),
    expectedEffect: () => scheduleEffect(false),
    show: scheduleShow,
  }),
  recorderAction({
    schema: plainAction('schedule-toggle', 'Enable or disable the schedule'),
    example: { action: 'schedule-toggle' },
    readsAtPress: 'schedule',
    plan: (_action, inputs) => {
      const known = decideFromLive(inputs, 'the schedule', ['schedule'], inputs.state.schedule);
      return known.ok ? send({ method: 'setSchedule', args: [{ IsEnabled: !known.value.IsEnabled }] }, true) : known.plan;
    },
    expectedEffect: (_action, call) => (call.method === 'setSchedule' && call.args[0].IsEnabled !== undefined ? scheduleEffect(call.args[0].IsEnabled) : null),
    show: scheduleShow,
  }),
  // The fields reuse the interface's write schema, so a value is checked exactly as the recorder's write
  // checks it. Its effect is not checked afterwards (only on, off and toggle are).
  recorderAction({
    schema: z
      .strictObject({
        action: z.literal('schedule-set'),
        start: ScheduleWrite.shape.StartTime.describe('Start time hh:mm (24 h), or null to clear it'),
        stop: ScheduleWrite.shape.StopTime.describe('Stop time hh:mm (24 h), or null to clear it; both null disables the schedule'),
        type: ScheduleWrite.shape.ScheduleType.describe('"All channels" or "In-sync only"'),
        enabled: ScheduleWrite.shape.IsEnabled.describe('Turn the schedule on or off as well'),
        recorder,
      })
      .refine(...someField(['start', 'stop', 'type', 'enabled']))
      .describe('Set the schedule\'s times, type and (optionally) whether it is on'),
    example: { action: 'schedule-set', start: '08:00', stop: '18:00', type: 'All channels' },
    plan: (action) => send({ method: 'setSchedule', args: [definedFields({ StartTime: action.start, StopTime: action.stop, ScheduleType: action.type, IsEnabled: action.enabled })] }, true),
    expectedEffect: uncheckable,
  }),
];
