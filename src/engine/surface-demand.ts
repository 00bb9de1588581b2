// Which previews and meters one surface asks its recorders to fetch: worked out from the page in front,
// the selected channel and the recorders' channel lists (extras-demand.ts), and handed to each recorder's
// extras only when it changes. A surface nobody sees, or a stopped one, asks for nothing.
import type { Channel } from '../api/channel.js';
import type { Page } from '../profiles/schema.js';
import { demandKey, pageDemand } from './extras-demand.js';
import type { RecorderGroups } from './recorder-group.js';
import type { RecorderHandle } from './session-services.js';

export class SurfaceDemand {
  private lastDemand = '';
  /** The page, selection and recorders' channel lists the demand was last worked out from. */
  private demandBasis: { page: Page; selected: number; channels: ReadonlyArray<readonly Channel[] | null> } | null = null;

  constructor(
    private readonly surfaceId: string,
    private readonly recorders: ReadonlyMap<string, RecorderHandle>,
    private readonly defaultRecorder: string,
  ) {}

  /** The demand of this page with this channel selected, handed to the recorders when it differs. */
  update(page: Page, selected: number, groups: RecorderGroups): void {
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

  /** Nothing to fetch for this surface (stopped, or nobody sees it). */
  forget(): void {
    if (this.lastDemand === '' && this.demandBasis === null) return;
    this.lastDemand = '';
    this.demandBasis = null;
    for (const handle of this.recorders.values()) handle.extras.setDemand(this.surfaceId, null);
  }
}

/** Two channel lists name the same sources in the same places (what a page's meters are fetched by). */
function sameSources(a: readonly Channel[] | null, b: readonly Channel[] | null): boolean {
  if (a === b) return true;
  if (a === null || b === null || a.length !== b.length) return false;
  return a.every((channel, i) => channel.SourceName === b[i]?.SourceName);
}
