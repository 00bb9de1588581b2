// What one surface asks its recorders to read, worked out from the page in front and handed over only
// when it changes: the parts of their state its controls' pictures and its bindings' actions need
// (parts-needed.ts), to each recorder's link; and the previews and meters it shows (extras-demand.ts,
// also by the selected channel and the recorders' channel lists), to each recorder's extras. A surface
// nobody sees, or a stopped one, asks for nothing.
import type { Channel } from '../api/channel.js';
import type { Page } from '../profiles/schema.js';
import { demandKey, pageDemand } from './extras-demand.js';
import { pageParts } from './parts-needed.js';
import type { RecorderGroups } from './recorder-group.js';
import type { StatePart } from './recorder-state.js';
import type { RecorderHandle } from './session-services.js';

export class SurfaceDemand {
  private lastDemand = '';
  /** The parts last asked of each recorder, as a text per recorder (empty: none asked). */
  private lastParts = new Map<string, string>();
  /** The page and profile the parts were last worked out from: they depend on nothing else. */
  private partsBasis: { page: Page; groups: RecorderGroups; dialogOverlay: boolean } | null = null;
  /** The page, selection and recorders' channel lists the demand was last worked out from. */
  private demandBasis: { page: Page; selected: number; channels: ReadonlyArray<readonly Channel[] | null> } | null = null;

  constructor(
    private readonly surfaceId: string,
    private readonly recorders: ReadonlyMap<string, RecorderHandle>,
    private readonly defaultRecorder: string,
  ) {}

  /**
   * The demand of this page with this channel selected, handed to the recorders when it differs.
   * `dialogOverlay`: the profile has a page put in front while the default recorder shows a dialog.
   */
  update(page: Page, selected: number, groups: RecorderGroups, dialogOverlay: boolean): void {
    this.updateParts(page, groups, dialogOverlay);
    // The demand depends only on the page, the selection and the channels' sources; most refreshes (clock
    // ticks, and every channel list read while takes run, whose counters move) change none of them.
    const channels = [...this.recorders.values()].map((h) => h.link.state.channels);
    const basis = this.demandBasis;
    if (basis !== null && basis.page === page && basis.selected === selected && channels.length === basis.channels.length && channels.every((list, i) => sameSources(list, basis.channels[i] ?? null))) return;
    this.demandBasis = { page, selected, channels };
    const demand = pageDemand(page, {
      defaultRecorder: this.defaultRecorder,
      groups,
      stateOf: (name) => this.recorders.get(name)?.link.state,
      selectedChannel: selected,
    });
    const text = demandKey(demand);
    if (text === this.lastDemand) return;
    this.lastDemand = text;
    for (const [name, handle] of this.recorders) handle.extras.setDemand(this.surfaceId, demand.get(name) ?? null);
  }

  /** Nothing to read or fetch for this surface (stopped, or nobody sees it). */
  forget(): void {
    this.partsBasis = null;
    for (const name of this.lastParts.keys()) this.recorders.get(name)?.link.want?.(this.surfaceId, null);
    this.lastParts.clear();
    if (this.lastDemand === '' && this.demandBasis === null) return;
    this.lastDemand = '';
    this.demandBasis = null;
    for (const handle of this.recorders.values()) handle.extras.setDemand(this.surfaceId, null);
  }

  /** Each recorder is told the parts this page needs of it, when they differ from what it was told. */
  private updateParts(page: Page, groups: RecorderGroups, dialogOverlay: boolean): void {
    const basis = this.partsBasis;
    if (basis !== null && basis.page === page && basis.groups === groups && basis.dialogOverlay === dialogOverlay) return;
    this.partsBasis = { page, groups, dialogOverlay };
    const needed = pageParts(page, { defaultRecorder: this.defaultRecorder, groups, dialogOverlay });
    for (const [name, handle] of this.recorders) {
      const parts: ReadonlySet<StatePart> = needed.get(name) ?? new Set();
      const text = [...parts].sort().join(',');
      if ((this.lastParts.get(name) ?? '') === text) continue;
      if (text === '') this.lastParts.delete(name);
      else this.lastParts.set(name, text);
      handle.link.want?.(this.surfaceId, parts.size === 0 ? null : parts);
    }
  }
}

/** Two channel lists name the same sources in the same places (what a page's meters are fetched by). */
function sameSources(a: readonly Channel[] | null, b: readonly Channel[] | null): boolean {
  if (a === b) return true;
  if (a === null || b === null || a.length !== b.length) return false;
  return a.every((channel, i) => channel.SourceName === b[i]?.SourceName);
}
