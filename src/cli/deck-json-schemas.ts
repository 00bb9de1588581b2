// The JSON Schemas of the web deck's WebSocket protocol, both directions, for anyone writing another
// client for it (a kiosk, a test rig): every text message the bridge sends a page, and every message a
// page may send. Generated from the zod schemas of src/remote/deck-protocol.ts, which type the bridge's
// messages as they are sent and check the page's as they arrive. Key images are binary frames
// (src/remote/image-frames.ts), not JSON, and have no schema here.
import { jsonSchemaOf } from '../profiles/json-schema.js';
import { PageMessage, ServerMessage } from '../remote/deck-protocol.js';

export function deckJsonSchemas() {
  return [
    {
      file: 'deck-server-message.schema.json',
      schema: jsonSchemaOf(ServerMessage, {
        $id: 'https://recdeck.dev/schema/web/deck-server-message.json',
        title: 'recdeck web deck: a message from the bridge',
        description:
          'A JSON text message the bridge sends a web deck page over its WebSocket (/ws): the decks (hello), the state, each command, a light or a level, the alarms, or why a message from the page was ignored. Key images come as binary frames instead.',
      }),
    },
    {
      file: 'deck-page-message.schema.json',
      schema: jsonSchemaOf(PageMessage, {
        $id: 'https://recdeck.dev/schema/web/deck-page-message.json',
        title: 'recdeck web deck: a message from the page',
        description: 'A JSON text message a web deck page sends the bridge over its WebSocket: an input on a deck (press, release, cancel, turn, touch), the decks it has in view, or how many image messages it has drawn.',
      }),
    },
  ];
}
