// Text from the bundled DejaVu faces: measurement, outlines that really rasterise where asked, and fitting.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { capHeight, fitFontSize, fontFace, measureText, textPathData, textSvg, truncateText, type TextAnchor } from '../../src/render/font.js';

/** Bounding box of the pixels brighter than mid-grey in white-on-black SVG content. */
async function inkBox(content: string, width: number, height: number) {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="${width}" height="${height}" fill="#000"/>${content}</svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let box: { left: number; right: number; top: number; bottom: number } | undefined;
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      if ((data[(y * info.width + x) * info.channels] ?? 0) < 128) continue;
      box = box === undefined
        ? { left: x, right: x, top: y, bottom: y }
        : { left: Math.min(box.left, x), right: Math.max(box.right, x), top: Math.min(box.top, y), bottom: Math.max(box.bottom, y) };
    }
  }
  return box;
}

describe('faces', () => {
  it('are parsed once and kept', () => {
    expect(fontFace('bold')).toBe(fontFace('bold'));
    expect(fontFace('bold')).not.toBe(fontFace('regular'));
  });

  it('differ: the mono face gives every character the same advance, the proportional ones do not', () => {
    expect(measureText('iiii', 'mono', 20)).toBeCloseTo(measureText('WWWW', 'mono', 20), 5);
    expect(measureText('iiii', 'regular', 20)).toBeLessThan(measureText('WWWW', 'regular', 20) * 0.6);
  });
});

describe('measureText', () => {
  it('grows with the text and scales with the size', () => {
    const widths = ['CH 1', 'CH 10', 'CH 100'].map((text) => measureText(text, 'bold', 24));
    expect(widths[0]).toBeGreaterThan(0);
    expect(widths[1]).toBeGreaterThan(widths[0]!);
    expect(widths[2]).toBeGreaterThan(widths[1]!);
    expect(measureText('Camera', 'regular', 40)).toBeCloseTo(2 * measureText('Camera', 'regular', 20), 5);
    expect(measureText('', 'bold', 24)).toBe(0);
  });

  it('applies pair kerning', () => {
    expect(measureText('AV', 'bold', 100)).toBeLessThan(measureText('A', 'bold', 100) + measureText('V', 'bold', 100) - 2);
  });

  it('measures a text the same however many others were laid out between (layouts are kept, within a bound)', () => {
    const first = ['AV 12:34', 'Camera 7', '01:02:03'].map((text) => measureText(text, 'bold', 30));
    // Far more texts than are kept: a day of clock seconds, each laid out once.
    for (let second = 0; second < 10_000; second++) measureText(`${Math.floor(second / 60)}:${second % 60}`, 'bold', 30);
    expect(['AV 12:34', 'Camera 7', '01:02:03'].map((text) => measureText(text, 'bold', 30))).toEqual(first);
    expect(measureText('AV 12:34', 'bold', 60)).toBeCloseTo(2 * (first[0] as number), 5);
  });
});

describe('textSvg', () => {
  it.each<[TextAnchor, number]>([
    ['start', 20],
    ['middle', 150],
    ['end', 280],
  ])('draws the text in the box its anchor (%s) and baseline put it in', async (anchor, x) => {
    const size = 40;
    const width = measureText('HEH', 'bold', size);
    const box = await inkBox(textSvg({ text: 'HEH', face: 'bold', size, x, y: 70, anchor, fill: '#ffffff' }), 300, 100);
    const left = anchor === 'start' ? x : anchor === 'middle' ? x - width / 2 : x - width;
    expect(box).toBeDefined();
    // Side bearings keep the ink a little inside the advance.
    expect(box!.left).toBeGreaterThanOrEqual(Math.floor(left));
    expect(box!.left).toBeLessThan(left + 6);
    expect(box!.right).toBeLessThanOrEqual(Math.ceil(left + width));
    expect(box!.right).toBeGreaterThan(left + width - 6);
    // Capitals sit on the baseline and reach up by the cap height.
    expect(box!.bottom).toBe(69);
    expect(box!.top).toBeCloseTo(70 - capHeight('bold', size), -0.5);
  });

  it('escapes the fill and draws nothing for empty text', async () => {
    expect(textSvg({ text: 'A', face: 'bold', size: 10, x: 0, y: 10, anchor: 'start', fill: 'url("#x")' })).toContain('fill="url(&quot;#x&quot;)"');
    expect(textPathData('', 'bold', 10, 0, 10)).toBe('');
    expect(await inkBox(textSvg({ text: ' ', face: 'bold', size: 40, x: 10, y: 50, anchor: 'start', fill: '#fff' }), 100, 60)).toBeUndefined();
  });
});

describe('fitFontSize', () => {
  const text = 'Camera 3 — Studio A';

  it('picks the largest whole size that fits maxWidth', () => {
    const size = fitFontSize(text, 'regular', 150, 60, 8);
    expect(size).toBeLessThan(60);
    expect(Number.isInteger(size)).toBe(true);
    expect(measureText(text, 'regular', size)).toBeLessThanOrEqual(150);
    expect(measureText(text, 'regular', size + 1)).toBeGreaterThan(150);
  });

  it('stays within maxSize and minSize', () => {
    expect(fitFontSize('CH 1', 'bold', 1000, 48, 8)).toBe(48);
    expect(fitFontSize(text, 'regular', 10, 48, 12)).toBe(12);
  });
});

describe('truncateText', () => {
  it('keeps text that fits, and shortens text that does not to a prefix with an ellipsis that fits', () => {
    expect(truncateText('Short', 'regular', 16, 200)).toBe('Short');
    const long = 'An extremely long source name that cannot fit';
    const shortened = truncateText(long, 'regular', 16, 120);
    expect(shortened.endsWith('\u2026')).toBe(true);
    expect(long.startsWith(shortened.slice(0, -1))).toBe(true);
    expect(shortened.length).toBeGreaterThan(5);
    expect(measureText(shortened, 'regular', 16)).toBeLessThanOrEqual(120);
  });
});
