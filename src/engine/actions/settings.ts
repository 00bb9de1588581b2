// The recorder's writable preferences. Its effect is not checked: the bridge does not read preferences.
import * as z from 'zod';
import { SettingsWrite } from '../../api/app.js';
import { definedFields, send } from '../command-plan.js';
import { recorderAction, uncheckable } from './entry.js';
import { recorder, someField } from './parameters.js';

export const SETTINGS = [
  recorderAction({
    schema: z
      .strictObject({
        action: z.literal('settings-set'),
        'log-folder': SettingsWrite.shape.LogFolder.describe('Folder for the recorder\'s logs'),
        'preview-refresh': SettingsWrite.shape.PreviewRefresh.describe('Previews per second, 1 to 60'),
        'load-last-session': SettingsWrite.shape.LoadLastSession.describe('Load the last session at startup'),
        'preview-stretch': SettingsWrite.shape.PreviewStretch.describe('Stretch previews to fill the preview control'),
        'always-show-statistics': SettingsWrite.shape.AlwaysShowStatistics.describe('Always show recording statistics'),
        'always-show-audio-meters': SettingsWrite.shape.AlwaysShowAudioMeters.describe('Always show audio meters'),
        'start-at-startup': SettingsWrite.shape.StartAtStartup.describe('Start the recorder when the computer starts'),
        'open-async': SettingsWrite.shape.OpenAsync.describe('Check whether input network streams are valid'),
        recorder,
      })
      .refine(
        ...someField(['log-folder', 'preview-refresh', 'load-last-session', 'preview-stretch', 'always-show-statistics', 'always-show-audio-meters', 'start-at-startup', 'open-async']),
      )
      .describe('Set any of the recorder\'s writable preferences'),
    example: { action: 'settings-set', 'preview-refresh': 10 },
    plan: (action) =>
      send({
        method: 'updateSettings',
        args: [
          definedFields({
            LogFolder: action['log-folder'],
            PreviewRefresh: action['preview-refresh'],
            LoadLastSession: action['load-last-session'],
            PreviewStretch: action['preview-stretch'],
            AlwaysShowStatistics: action['always-show-statistics'],
            AlwaysShowAudioMeters: action['always-show-audio-meters'],
            StartAtStartup: action['start-at-startup'],
            OpenAsync: action['open-async'],
          }),
        ],
      }),
    expectedEffect: uncheckable,
  }),
];
