// Answering the recorder's dialog. No effect is checked: one dialog may be followed by another.
import { send } from '../command-plan.js';
import { recorderAction, uncheckable } from './entry.js';
import { plainAction } from './parameters.js';

export const DIALOG = [
  recorderAction({
    schema: plainAction('dialog-ok', 'Confirm the recorder\'s dialog'),
    example: { action: 'dialog-ok' },
    plan: () => send({ method: 'answerDialog', args: ['ok'] }),
    expectedEffect: uncheckable,
    show: () => 'dialog-ok',
  }),
  recorderAction({
    schema: plainAction('dialog-cancel', 'Cancel the recorder\'s dialog'),
    example: { action: 'dialog-cancel' },
    plan: () => send({ method: 'answerDialog', args: ['cancel'] }),
    expectedEffect: uncheckable,
    show: () => 'dialog-cancel',
  }),
];
