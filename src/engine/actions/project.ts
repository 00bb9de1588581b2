// The grid, the session and project files. No effect is checked: a grid change may ask for
// confirmation first, and a new session or a loaded project changes everything.
import * as z from 'zod';
import { GRID_SIZES } from '../../api/channel.js';
import { send } from '../command-plan.js';
import { recorderAction, uncheckable } from './entry.js';
import { plainAction, recorder } from './parameters.js';

const path = z.string().min(1).describe('Project file path on the recorder\'s machine');

export const PROJECT = [
  recorderAction({
    schema: z.strictObject({ action: z.literal('grid'), size: z.literal(GRID_SIZES).describe(`Channels in the grid: ${GRID_SIZES.join(', ')}`), recorder }).describe('Set the channel grid size'),
    example: { action: 'grid', size: 9 },
    plan: (action) => send({ method: 'setChannelCount', args: [action.size] }),
    expectedEffect: uncheckable,
    show: (action) => ({ grid: action.size }),
  }),
  recorderAction({
    schema: plainAction('new-session', 'Reset the recorder\'s session'),
    example: { action: 'new-session' },
    plan: () => send({ method: 'newSession', args: [] }, true),
    expectedEffect: uncheckable,
    icon: 'new',
  }),
  recorderAction({
    schema: z.strictObject({ action: z.literal('save-project'), path, recorder }).describe('Save the project to a file on the recorder'),
    example: { action: 'save-project', path: 'D:\\Projects\\studio.json' },
    plan: (action) => send({ method: 'saveProject', args: [action.path] }),
    expectedEffect: uncheckable,
    icon: 'save',
  }),
  recorderAction({
    schema: z.strictObject({ action: z.literal('load-project'), path, recorder }).describe('Load a project file on the recorder'),
    example: { action: 'load-project', path: 'D:\\Projects\\studio.json' },
    plan: (action) => send({ method: 'loadProject', args: [action.path] }, true),
    expectedEffect: uncheckable,
    icon: 'load',
  }),
];
