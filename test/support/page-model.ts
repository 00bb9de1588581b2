// What the page holds for each key after the image messages it was sent, applied as the page applies
// them (src/remote/page/deck.js): full frames replace a key's image, rect frames patch a part of it.
export class PageModel {
  private readonly images = new Map<string, { width: number; height: number; data: Buffer }>();
  /** Every frame applied, in order, and the messages they came in. */
  readonly frames: Array<{ panel: number; control: number; rect: boolean }> = [];
  messages = 0;

  apply(message: Buffer): void {
    this.messages++;
    for (let offset = 0; offset < message.length; ) {
      const version = message.readUInt16BE(offset);
      const [panel, control] = [message.readUInt16BE(offset + 2), message.readUInt16BE(offset + 4)];
      const key = `${panel}:${control}`;
      this.frames.push({ panel, control, rect: version === 2 });
      if (version === 1) {
        const width = message.readUInt16BE(offset + 6);
        const height = message.readUInt16BE(offset + 8);
        this.images.set(key, { width, height, data: Buffer.from(message.subarray(offset + 10, offset + 10 + width * height * 3)) });
        offset += 10 + width * height * 3;
        continue;
      }
      if (version !== 2) throw new Error(`frame version ${version} at byte ${offset}`);
      const [x, y, width, height] = [6, 8, 10, 12].map((at) => message.readUInt16BE(offset + at)) as [number, number, number, number];
      const image = this.images.get(key);
      if (!image) throw new Error(`a rect frame for ${key}, which the page has no image of`);
      for (let r = 0; r < height; r++) message.copy(image.data, ((y + r) * image.width + x) * 3, offset + 14 + r * width * 3, offset + 14 + (r + 1) * width * 3);
      offset += 14 + width * height * 3;
    }
  }

  image(panel: number, control: number): { width: number; height: number; data: Buffer } | undefined {
    return this.images.get(`${panel}:${control}`);
  }
}
