// The JSON Schemas of the state bus, for the tools that read it (Node-RED, Companion, Home Assistant,
// dashboards): each message as it travels, its body inside the signed envelope `{ from, at, body, sig }`
// (src/bus/envelope.ts says what the signature covers), and the facility file, for editors. Generated
// from the zod schemas both ends of the bus check.
import { envelopeOf } from '../bus/envelope.js';
import { busMessageSchemas } from '../bus/topics.js';
import { jsonSchemaOf } from '../profiles/json-schema.js';
import { FacilityFile } from './facility-file.js';

export function busJsonSchemas() {
  const messages = busMessageSchemas().map(({ file, topic, description, schema }) => ({
    file,
    schema: jsonSchemaOf(envelopeOf(schema), {
      $id: `https://recdeck.dev/schema/bus/${file.replace('.schema.json', '.json')}`,
      title: `recdeck bus: ${topic}`,
      description: `${description} The message is the body of an envelope: who sent it (a bus id of the facility file), when (ms since the epoch, the sender's clock) and its Ed25519 signature over the topic and the envelope's bytes before "sig".`,
    }),
  }));
  const facility = {
    file: 'recdeck-facility.schema.json',
    schema: jsonSchemaOf(FacilityFile, {
      $id: 'https://recdeck.dev/schema/bus/facility.json',
      title: 'recdeck facility file',
      description: "Who is who on the state bus: the pollers with the recorders each may poll, the panels with what each may call on which recorder, and each one's Ed25519 public key (recdeck bus keygen prints it).",
    }),
  };
  return [...messages, facility];
}
