// The JSON Schemas of the state bus's messages, for the tools that read the bus (Node-RED, Companion,
// Home Assistant, dashboards): generated from the zod schemas both ends of the bus check.
import { busMessageSchemas } from '../bus/topics.js';
import { jsonSchemaOf } from '../profiles/json-schema.js';

export function busJsonSchemas() {
  return busMessageSchemas().map(({ file, topic, description, schema }) => ({
    file,
    schema: jsonSchemaOf(schema, { $id: `https://recdeck.dev/schema/bus/${file.replace('.schema.json', '.json')}`, title: `recdeck bus: ${topic}`, description }),
  }));
}
