// Which plan draws which picture kind.
import type { PictureBody } from '../../engine/picture.js';
import type { PixelSize, RgbImage } from '../../engine/surface.js';
import { alarmsPlan } from './alarms.js';
import { channelPlan } from './channel.js';
import { dialogPlan } from './dialog.js';
import { gridPlan } from './grid.js';
import { labelPlan } from './label.js';
import { meterPlan } from './meter.js';
import { pagePlan } from './page.js';
import type { TilePlan } from './plan.js';
import { resourcesPlan } from './resources.js';
import { schedulePlan } from './schedule.js';
import { statusPlan } from './status.js';
import { syncPlan } from './sync.js';

/** The plan for a picture's body (overlays are added by the renderer); blank has none, it is plain black. */
export function tilePlan(picture: Exclude<PictureBody, { kind: 'blank' }>, size: PixelSize, thumbnail: RgbImage | undefined): TilePlan {
  switch (picture.kind) {
    case 'channel':
      return channelPlan(picture, size, thumbnail);
    case 'sync':
      return syncPlan(picture, size);
    case 'dialog':
      return dialogPlan(picture, size);
    case 'resources':
      return resourcesPlan(picture, size);
    case 'schedule':
      return schedulePlan(picture, size);
    case 'meter':
      return meterPlan(picture, size);
    case 'grid':
      return gridPlan(picture, size);
    case 'label':
      return labelPlan(picture, size);
    case 'page':
      return pagePlan(picture, size);
    case 'status':
      return statusPlan(picture, size);
    case 'alarms':
      return alarmsPlan(picture, size);
  }
}
