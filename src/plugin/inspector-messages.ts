// What the property inspector may ask the plugin (sendToPlugin), and the answer it gets
// (sendToPropertyInspector). The inspector saves settings itself, through the app; it asks the plugin
// only what the plugin makes of them: whether its action can run, which recorders are polled now, and
// which recorders there are (in a facility, the page cannot know them: the plugin sees them on the bus).
import * as z from 'zod';
import { describeIssue } from './settings.js';

export const InspectorRequest = z.strictObject({ request: z.literal('status'), context: z.string().min(1) });
export type InspectorRequest = z.output<typeof InspectorRequest>;

export const InspectorAnswer = z.union([
  z.strictObject({ status: z.strictObject({ context: z.string(), problem: z.string().nullable(), polled: z.array(z.string()), recorders: z.array(z.string()) }) }),
  z.strictObject({ error: z.string() }),
]);
export type InspectorAnswer = z.output<typeof InspectorAnswer>;

export interface DeckStatus {
  problemOf(context: string): string | null;
  readonly polledRecorders: string[];
  readonly knownRecorders: string[];
}

/**
 * The inspector's Recorder choices: the recorders known (the global settings', or a facility's as the
 * plugin sees them on the bus), and the action's own even when it is not among them now (a facility
 * still joining, a recorder removed): the choice shown is never silently another one.
 */
export function recorderChoices(known: readonly string[], current: unknown): { names: string[]; selected: string } {
  const selected = typeof current === 'string' && current !== '' ? current : (known[0] ?? '');
  return { names: [...new Set([...known, selected])].filter((name) => name !== ''), selected };
}

export function inspectorAnswer(payload: unknown, deck: DeckStatus): InspectorAnswer {
  const request = InspectorRequest.safeParse(payload);
  if (!request.success) return { error: `the plugin did not understand the request: ${request.error.issues.map(describeIssue).join('; ')}` };
  return { status: { context: request.data.context, problem: deck.problemOf(request.data.context), polled: deck.polledRecorders, recorders: deck.knownRecorders } };
}
