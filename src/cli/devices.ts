// `recdeck devices`: the control surfaces this machine can see, or why it cannot see them.
import { describeStreamDecks } from '../surfaces/streamdeck/describe.js';
import { nodeStreamDeckBackend } from '../surfaces/streamdeck/backend-node.js';

export const devicesUsage = 'recdeck devices';

export async function devices(_args: string[], print: (text: string) => void = (t) => process.stdout.write(t)): Promise<void> {
  const decks = await describeStreamDecks(nodeStreamDeckBackend());
  print(`Stream Decks:\n${decks.map((line) => `  ${line}`).join('\n')}\n`);
}
