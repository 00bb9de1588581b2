// The JSON Schema of a MIDI map file, from the same zod schema the loader uses.
import { jsonSchemaOf } from '../../profiles/json-schema.js';
import { MidiMap } from './midi-map.js';

export const MIDI_MAP_SCHEMA_ID = 'https://recdeck.dev/schema/midi-map.json';

export function midiMapJsonSchema() {
  return jsonSchemaOf(MidiMap, {
    $id: MIDI_MAP_SCHEMA_ID,
    title: 'recdeck MIDI map',
    description: 'A MIDI controller as recdeck sees it: its ports, the messages its controls send, and how its LEDs show each state.',
  });
}
