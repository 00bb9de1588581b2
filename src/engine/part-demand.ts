// Which parts of one recorder's state are wanted, and by whom: each owner (a surface, the alarm engine,
// the web server) says the parts it needs now, replacing what it said before; the parts read are the
// union. An owner's word is the only record of its need, so a need that ends (a page turned, a surface
// gone) ends here the moment its owner says so, and nothing else has to remember to take it back.
import type { StatePart } from './recorder-state.js';

export class PartDemand {
  private readonly owners = new Map<string, ReadonlySet<StatePart>>();
  private union: ReadonlySet<StatePart> = new Set();

  /** What `owner` needs from now on (null or empty: nothing); true when the union changed. */
  want(owner: string, parts: Iterable<StatePart> | null): boolean {
    const wanted = new Set(parts ?? []);
    if (wanted.size === 0) this.owners.delete(owner);
    else this.owners.set(owner, wanted);
    const union = new Set<StatePart>();
    for (const each of this.owners.values()) for (const part of each) union.add(part);
    const changed = union.size !== this.union.size || [...union].some((part) => !this.union.has(part));
    this.union = union;
    return changed;
  }

  has(part: StatePart): boolean {
    return this.union.has(part);
  }

  /** Every part someone needs now. */
  get parts(): ReadonlySet<StatePart> {
    return this.union;
  }
}
