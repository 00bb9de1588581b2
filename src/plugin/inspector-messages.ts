// What the property inspector may ask the plugin (sendToPlugin), and the answer it gets
// (sendToPropertyInspector). The inspector saves settings itself, through the app; it asks the plugin
// only what the plugin makes of them: whether its action can run, and which recorders are polled now.
import * as z from 'zod';
import { describeIssue } from './settings.js';

export const InspectorRequest = z.strictObject({ request: z.literal('status'), context: z.string().min(1) });
export type InspectorRequest = z.output<typeof InspectorRequest>;

export const InspectorAnswer = z.union([
  z.strictObject({ status: z.strictObject({ context: z.string(), problem: z.string().nullable(), polled: z.array(z.string()) }) }),
  z.strictObject({ error: z.string() }),
]);
export type InspectorAnswer = z.output<typeof InspectorAnswer>;

export interface DeckStatus {
  problemOf(context: string): string | null;
  readonly polledRecorders: string[];
}

export function inspectorAnswer(payload: unknown, deck: DeckStatus): InspectorAnswer {
  const request = InspectorRequest.safeParse(payload);
  if (!request.success) return { error: `the plugin did not understand the request: ${request.error.issues.map(describeIssue).join('; ')}` };
  return { status: { context: request.data.context, problem: deck.problemOf(request.data.context), polled: deck.polledRecorders } };
}
