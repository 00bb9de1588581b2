// Who may do what on the bus. A facility lists public keys only (so its file is safe to keep in git and
// copy to every machine): the pollers, each with the recorders it may poll, and the panels, each with
// the operations it may call on which recorder. A process holds its own private key and signs all it
// publishes; what it reads counts only when the facility's key for its sender signed it. Nobody but a
// poller's key can make a panel show a state, and nobody but a panel's key can make a poller run that
// panel's command, whoever else can publish on the broker.
import { createPublicKey, type KeyObject } from 'node:crypto';
import type { OperationId } from '../api/operations.js';
import { openEnvelope, sealEnvelope, type Keyring, type OpenResult } from './envelope.js';
import { operationsIn } from './operation-groups.js';

/** The operations of the control group (mayAckAlarms). */
const CONTROL = operationsIn('control');

/** Every recorder, in a facility's lists. */
export const ANY_RECORDER = '*';

export interface FacilityPoller {
  publicKey: KeyObject;
  /** Recorder names, or ANY_RECORDER. */
  recorders: ReadonlySet<string>;
}

export interface FacilityPanel {
  publicKey: KeyObject;
  /** The operations it may call, by recorder name (ANY_RECORDER: on every recorder). */
  may: ReadonlyMap<string, ReadonlySet<OperationId>>;
}

export interface Facility {
  pollers: ReadonlyMap<string, FacilityPoller>;
  panels: ReadonlyMap<string, FacilityPanel>;
}

/** An Ed25519 public key as a facility file writes it: the 32 raw bytes in base64url (43 characters). */
export function publicKeyFromText(text: string): KeyObject {
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: text }, format: 'jwk' });
}

export function publicKeyText(key: KeyObject): string {
  const { x } = key.export({ format: 'jwk' });
  if (key.asymmetricKeyType !== 'ed25519' || x === undefined) throw new TypeError(`not an Ed25519 key (${key.asymmetricKeyType ?? 'unknown type'})`);
  return x;
}

/** This process on the bus: its id, how it signs, and whose messages it believes. */
export class BusAuthority implements Keyring {
  private constructor(
    readonly id: string,
    private readonly privateKey: KeyObject | null,
    private readonly facility: Facility | null,
  ) {}

  /** Signs with `privateKey`; believes only what the facility's keys signed. */
  static signed(id: string, privateKey: KeyObject, facility: Facility): BusAuthority {
    return new BusAuthority(id, privateKey, facility);
  }

  /** --mqtt-insecure: signs nothing and believes anyone (a bench, a lab; never a studio). */
  static insecure(id: string): BusAuthority {
    return new BusAuthority(id, null, null);
  }

  get secure(): boolean {
    return this.facility !== null;
  }

  publicKeyOf(id: string): KeyObject | null {
    return this.facility?.pollers.get(id)?.publicKey ?? this.facility?.panels.get(id)?.publicKey ?? null;
  }

  /** This process's message for a topic, signed. */
  seal(topic: string, at: number, body: unknown): Buffer {
    return sealEnvelope(topic, this.id, at, body, this.privateKey);
  }

  /** A message's sender, time and body, once its size and signature are checked. */
  open(topic: string, payload: Buffer, maxBytes: number): OpenResult {
    return openEnvelope(topic, payload, maxBytes, this.facility === null ? null : this);
  }

  mayPoll(id: string, recorder: string): boolean {
    if (this.facility === null) return true;
    const recorders = this.facility.pollers.get(id)?.recorders;
    return recorders !== undefined && (recorders.has(recorder) || recorders.has(ANY_RECORDER));
  }

  mayCall(id: string, recorder: string, operation: OperationId): boolean {
    if (this.facility === null) return true;
    const may = this.facility.panels.get(id)?.may;
    return may !== undefined && [recorder, ANY_RECORDER].some((name) => may.get(name)?.has(operation) === true);
  }

  /**
   * Whether a panel may acknowledge a recorder's alarms over the bus (bus-alarm-ack.ts): when the facility
   * lets it call every operation of `control` there (a desk that runs the takes; a gallery that only
   * reads, or a panel granted a few operations, may not silence what every panel shows).
   */
  mayAckAlarms(id: string, recorder: string): boolean {
    return CONTROL.every((operation) => this.mayCall(id, recorder, operation));
  }

  /**
   * The panels that may call anything on a recorder (whose command topics its poller subscribes to, one
   * each); null on an insecure bus, where anyone may be anyone (the poller subscribes to them all).
   */
  panelsOf(recorder: string): string[] | null {
    if (this.facility === null) return null;
    return [...this.facility.panels.keys()].filter((id) => this.mayCallAnything(id, recorder));
  }

  /** Whether a panel may call anything at all on a recorder (its refreshes count only then). */
  mayCallAnything(id: string, recorder: string): boolean {
    if (this.facility === null) return true;
    const may = this.facility.panels.get(id)?.may;
    return may !== undefined && [recorder, ANY_RECORDER].some((name) => (may.get(name)?.size ?? 0) > 0);
  }
}
