// What reaches the device when the engine draws: the HID reports the library sends are reassembled,
// decoded (JPEG or BMP, per model) and checked for colour, addressed key and orientation. The panels of
// most decks are mounted turned; the library turns each image to match, and these tests pin down that
// our images go through that path (right key index, right colour order, right way up).
import { DeviceModelId } from '@elgato-stream-deck/core';
import { describe, expect, it } from 'vitest';
import { fakeSurface, image as imageOf, show } from './helpers.js';
import { decodeBmp, decodeJpeg, gen1KeyImages, gen2KeyImages, lcdRegionImages, markedCorner, markedImage, near, neoLcdImages, pixelOf, solidImage, type DecodedImage, type Rgb } from './reports.js';

const RED: Rgb = [220, 20, 20];
const BLUE: Rgb = [20, 40, 220];
const GREEN: Rgb = [20, 200, 60];
const centre = (image: DecodedImage) => pixelOf(image, Math.floor(image.width / 2), Math.floor(image.height * 0.75));

describe('key images on the device', () => {
  it('mk2: red on key0 and blue on key14 reach keys 0 and 14 as JPEGs, turned half a turn for the upside-down panel', async () => {
    const { surface, hid } = await fakeSurface(DeviceModelId.ORIGINALMK2);
    await show(surface, imageOf('key0', markedImage(72, 72, RED)), imageOf('key14', markedImage(72, 72, BLUE)));
    const images = gen2KeyImages(hid.reportsSince());
    expect(images.map((i) => i.hidIndex)).toEqual([0, 14]);
    const [key0, key14] = images.map((i) => decodeJpeg(i.jpeg)) as [DecodedImage, DecodedImage];
    expect(key0).toMatchObject({ width: 72, height: 72 });
    expect(near(centre(key0), RED)).toBe(true);
    expect(near(centre(key14), BLUE)).toBe(true);
    // Our mark was top left; the panel shows the picture turned by 180 degrees.
    expect(markedCorner(key0)).toBe('bottom-right');
  });

  it('xl: key31 is addressed as 31, 96 x 96, turned like the mk2', async () => {
    const { surface, hid } = await fakeSurface(DeviceModelId.XL);
    await show(surface, imageOf('key31', markedImage(96, 96, GREEN)));
    const [image] = gen2KeyImages(hid.reportsSince());
    expect(image?.hidIndex).toBe(31);
    const decoded = decodeJpeg(image?.jpeg as Buffer);
    expect(decoded).toMatchObject({ width: 96, height: 96 });
    expect(near(centre(decoded), GREEN)).toBe(true);
    expect(markedCorner(decoded)).toBe('bottom-right');
  });

  it('original: BMP in BGR, keys numbered right to left in hardware, so key0 goes to hardware key 4', async () => {
    const { surface, hid } = await fakeSurface(DeviceModelId.ORIGINAL);
    await show(surface, imageOf('key0', markedImage(72, 72, RED)));
    await show(surface, imageOf('key14', markedImage(72, 72, BLUE)));
    const images = gen1KeyImages(hid.reportsSince());
    expect(images.map((i) => i.hidIndex)).toEqual([4, 10]);
    const [key0, key14] = images.map((i) => decodeBmp(i.bmp)) as [DecodedImage, DecodedImage];
    expect(key0).toMatchObject({ width: 72, height: 72 });
    // BMP is lossless: exact colours, so a red/blue swap would show.
    expect(centre(key0)).toEqual(RED);
    expect(centre(key14)).toEqual(BLUE);
    expect(markedCorner(key0)).toBe('bottom-right');
  });

  it('mini: BMP, 80 x 80, the panel turned a quarter (its picture is our picture transposed)', async () => {
    const { surface, hid } = await fakeSurface(DeviceModelId.MINI);
    await show(surface, imageOf('key5', markedImage(80, 80, BLUE, 'top-right')));
    const [image] = gen1KeyImages(hid.reportsSince());
    expect(image?.hidIndex).toBe(5);
    const decoded = decodeBmp(image?.bmp as Buffer);
    expect(decoded).toMatchObject({ width: 80, height: 80 });
    expect(centre(decoded)).toEqual(BLUE);
    expect(markedCorner(decoded)).toBe('bottom-left');
  });

  it('plus: keys go as they are (no turn), 120 x 120', async () => {
    const { surface, hid } = await fakeSurface(DeviceModelId.PLUS);
    await show(surface, imageOf('key7', markedImage(120, 120, RED)));
    const [image] = gen2KeyImages(hid.reportsSince());
    expect(image?.hidIndex).toBe(7);
    const decoded = decodeJpeg(image?.jpeg as Buffer);
    expect(near(centre(decoded), RED)).toBe(true);
    expect(markedCorner(decoded)).toBe('top-left');
  });

  it('studio: 144 x 112 keys, as they are', async () => {
    const { surface, hid } = await fakeSurface(DeviceModelId.STUDIO);
    await show(surface, imageOf('key20', markedImage(144, 112, GREEN)));
    const [image] = gen2KeyImages(hid.reportsSince());
    expect(image?.hidIndex).toBe(20);
    const decoded = decodeJpeg(image?.jpeg as Buffer);
    expect(decoded).toMatchObject({ width: 144, height: 112 });
    expect(markedCorner(decoded)).toBe('top-left');
  });

  it('neo: keys turned like the mk2', async () => {
    const { surface, hid } = await fakeSurface(DeviceModelId.NEO);
    await show(surface, imageOf('key3', markedImage(96, 96, BLUE)));
    const [image] = gen2KeyImages(hid.reportsSince());
    expect(image?.hidIndex).toBe(3);
    expect(markedCorner(decodeJpeg(image?.jpeg as Buffer))).toBe('bottom-right');
  });

  it('an image of the wrong size is refused before anything is sent, and the device stays open', async () => {
    const { surface, hid, failures, log } = await fakeSurface(DeviceModelId.ORIGINALMK2);
    await show(surface, imageOf('key0', markedImage(96, 96, RED)));
    expect(log.lines.map((l) => l.message)).toEqual(['streamdeck:CL00TEST: drawing key0 failed: streamdeck:CL00TEST: key0 takes 72x72 RGB, got 96x96 (27648 bytes)']);
    expect(hid.calls).toEqual([]);
    expect(failures).toEqual([]);
    expect(surface.isOpen).toBe(true);
  });
});

describe('solid keys', () => {
  it('mk2: a one-colour image is sent as a colour fill (feature report 0x03 0x06), not as a picture', async () => {
    const { surface, hid } = await fakeSurface(DeviceModelId.ORIGINALMK2);
    await show(surface, imageOf('key4', solidImage(72, 72, [10, 200, 30])));
    expect(hid.reportsSince()).toEqual([]);
    expect(hid.featuresSince().map((f) => [...f])).toEqual([[0x03, 0x06, 4, 10, 200, 30]]);
  });

  it('original: the library has no colour fill for it and sends a full picture of the colour', async () => {
    const { surface, hid } = await fakeSurface(DeviceModelId.ORIGINAL);
    await show(surface, imageOf('key0', solidImage(72, 72, [10, 200, 30])));
    const [image] = gen1KeyImages(hid.reportsSince());
    expect(image?.hidIndex).toBe(4);
    expect(centre(decodeBmp(image?.bmp as Buffer))).toEqual([10, 200, 30]);
  });

  it('an image with a single different pixel is not taken for solid', async () => {
    const { surface, hid } = await fakeSurface(DeviceModelId.ORIGINALMK2);
    const image = solidImage(72, 72, [0, 0, 0]);
    image.data[72 * 72 * 3 - 1] = 1;
    await show(surface, imageOf('key0', image));
    expect(gen2KeyImages(hid.reportsSince())).toHaveLength(1);
    expect(hid.featuresSince()).toEqual([]);
  });
});

describe('LCD strips and bars', () => {
  it('plus: a strip cell is drawn as its own region of the strip', async () => {
    const { surface, hid } = await fakeSurface(DeviceModelId.PLUS);
    await show(surface, imageOf('strip2', markedImage(200, 100, GREEN)));
    const [region] = lcdRegionImages(hid.reportsSince());
    expect(region).toMatchObject({ x: 400, y: 0, width: 200, height: 100 });
    const decoded = decodeJpeg(region?.jpeg as Buffer);
    expect(decoded).toMatchObject({ width: 200, height: 100 });
    expect(near(centre(decoded), GREEN)).toBe(true);
    expect(markedCorner(decoded)).toBe('top-left');
  });

  it('neo: the info bar is drawn whole, 248 x 58, turned like its keys', async () => {
    const { surface, hid } = await fakeSurface(DeviceModelId.NEO);
    await show(surface, imageOf('info', markedImage(248, 58, RED)));
    const [bar] = neoLcdImages(hid.reportsSince());
    const decoded = decodeJpeg(bar as Buffer);
    expect(decoded).toMatchObject({ width: 248, height: 58 });
    expect(near(centre(decoded), RED)).toBe(true);
    expect(markedCorner(decoded)).toBe('bottom-right');
  });
});
