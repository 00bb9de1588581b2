// What every surface over an opened USB device (a Stream Deck, an X-keys panel) does the same way: its
// input route, its closing (once, after the write under way), and its first failure, which closes the
// surface and tells whoever opened it, so that a later scan reopens the device as a new surface. Each
// adapter says how to detach from its library and how to close the device.
import { Subject, type Observable } from 'rxjs';
import type { DeviceOutput } from '../engine/device-output.js';
import type { Logger } from '../engine/log.js';
import type { SurfaceInput } from '../engine/surface.js';
import { messageOf } from '../api/errors.js';

export abstract class OpenedDevice {
  abstract readonly id: string;
  abstract readonly name: string;
  abstract readonly output: DeviceOutput;
  /** Everything done on the device and injected: the one route by which input reaches the engine. */
  readonly input: Observable<SurfaceInput>;
  protected readonly inputs = new Subject<SurfaceInput>();
  /** The device failed: nothing more is written to it. */
  protected failed = false;
  private closing: Promise<void> | null = null;

  constructor(
    private readonly log: Logger,
    /** Told once, when the device fails; the surface is closed by then. */
    private readonly onFailure: (error: unknown) => void,
  ) {
    this.input = this.inputs.asObservable();
  }

  /** False once the device failed or the surface was closed. */
  get isOpen(): boolean {
    return this.closing === null;
  }

  inject(input: SurfaceInput): void {
    this.inputs.next(input);
  }

  /** Stops listening and closes the device once the write under way is done. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  /** The device's first failure closes the surface and is told; a failure while closing is only noted. */
  protected fail(what: string, error: unknown): void {
    if (this.failed) return;
    this.failed = true;
    if (this.closing !== null) {
      this.log.warn(`${this.id} (${this.name}): ${what} while closing: ${messageOf(error)}`);
      return;
    }
    this.log.error(`${this.id} (${this.name}): ${what}: ${messageOf(error)}; closed until the device is seen again`);
    void this.close();
    this.onFailure(error);
  }

  /** Stops hearing the device's events. */
  protected abstract detach(): void;
  /** Closes the device itself. */
  protected abstract closeDevice(): Promise<void>;

  private async shutDown(): Promise<void> {
    this.detach();
    this.inputs.complete();
    await this.output.close();
    await this.closeDevice().catch((error: unknown) => {
      if (!this.failed) this.log.warn(`${this.id} (${this.name}): closing: ${messageOf(error)}`);
    });
  }
}
