// `--mqtt-facility FILE`: who is who on the state bus, as YAML. It holds public keys and grants only,
// so it is safe to keep in git and copy to every machine of the facility:
//
//   pollers:
//     poller-main:                        # a bus id: the MQTT user of its broker login too
//       publicKey: 3q2-7wAAAAAAAAAA…      # recdeck bus keygen prints it
//       recorders: [main]                 # the recorders it may poll ("*": any)
//   panels:
//     desk-1:
//       publicKey: …
//       may:                              # per recorder ("*": any), groups or operations
//         main: [read, control]
//
// Read with the profile loader, so a mistake is reported at its file:line:column. Here, not in cli/,
// because the Stream Deck plugin joins the bus as a panel too and reads the same file the same way.
import * as z from 'zod';
import { operations, type OperationId } from '../api/operations.js';
import { formatProfileError, loadYamlFile, type YamlFileKind } from '../profiles/load.js';
import { ANY_RECORDER, publicKeyFromText, type Facility, type FacilityPanel, type FacilityPoller } from './facility.js';
import { BusFileError } from './key-file.js';
import { OPERATION_GROUP_NAMES, operationsIn, type OperationGroup } from './operation-groups.js';
import { BusId, RecorderName } from './topics.js';

const OPERATION_IDS = Object.keys(operations) as OperationId[];
/** An operation as `recdeck call` names it (cli/call.ts commandName: recStart is rec-start); the bus may not import the CLI. */
const grantName = (id: OperationId): string => id.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
const BY_COMMAND_NAME = new Map(OPERATION_IDS.map((id) => [grantName(id), id]));

/** An Ed25519 public key: its 32 bytes in base64url, as `recdeck bus keygen` prints it. */
const PublicKey = z.string().regex(/^[A-Za-z0-9_-]{43}$/, { error: 'expected an Ed25519 public key as recdeck bus keygen prints it (43 characters of base64url)' });

const RecorderOrAny = z.union([RecorderName, z.literal(ANY_RECORDER)]);

/** A group (read, control, admin) or one operation, named as `recdeck call` names it (rec-start). */
const Grant = z.enum([...OPERATION_GROUP_NAMES, ...BY_COMMAND_NAME.keys()] as [string, ...string[]]);

export const FacilityFile = z.strictObject({
  pollers: z
    .record(
      BusId,
      z.strictObject({
        publicKey: PublicKey,
        /** The recorders it may poll and publish ("*": any). */
        recorders: z.array(RecorderOrAny).min(1),
      }),
    )
    .default({}),
  panels: z
    .record(
      BusId,
      z.strictObject({
        publicKey: PublicKey,
        /** What it may call, per recorder ("*": every recorder): read, control, admin, or operation names such as rec-start. */
        may: z.record(RecorderOrAny, z.array(Grant).min(1)).default({}),
      }),
    )
    .default({}),
});
export type FacilityFile = z.output<typeof FacilityFile>;

const FACILITY_FILE: YamlFileKind<typeof FacilityFile> = { schema: FacilityFile, name: 'a facility file', needs: 'pollers and panels' };

/** The facility a file describes; a file that does not load is refused with every problem at its file:line:column, `what` (the flag or setting) first. */
export async function loadFacility(file: string, what: string): Promise<Facility> {
  const result = await loadYamlFile(file, FACILITY_FILE);
  if (!result.ok) throw new BusFileError([`${what}: the facility file does not load:`, ...result.problems.map(formatProfileError)].join('\n'));
  return facilityOf(result.value, file, what);
}

export function facilityOf(data: FacilityFile, file: string, what: string): Facility {
  const pollers = new Map<string, FacilityPoller>(Object.entries(data.pollers).map(([id, poller]) => [id, { publicKey: publicKeyFromText(poller.publicKey), recorders: new Set(poller.recorders) }]));
  const panels = new Map<string, FacilityPanel>(
    Object.entries(data.panels).map(([id, panel]) => [id, { publicKey: publicKeyFromText(panel.publicKey), may: new Map(Object.entries(panel.may).map(([recorder, grants]) => [recorder, new Set(grants.flatMap(granted))])) }]),
  );
  for (const [id, poller] of Object.entries(data.pollers)) {
    if (data.panels[id] !== undefined && data.panels[id].publicKey !== poller.publicKey) throw new BusFileError(`${what}: ${file}: "${id}" is a poller and a panel with two different keys; one id has one key`);
  }
  return { pollers, panels };
}

function granted(name: string): OperationId[] {
  if ((OPERATION_GROUP_NAMES as readonly string[]).includes(name)) return operationsIn(name as OperationGroup);
  const id = BY_COMMAND_NAME.get(name);
  return id === undefined ? [] : [id];
}
