// Export of a view: the SVG document as it is, or that SVG rasterised to PNG (2× for sharpness).

/** Starts a download of `blob` named `name`. */
export function download(blob, name) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}

export function svgBlob(svg) {
  return new Blob([svg], { type: 'image/svg+xml' });
}

/** Rasterises an SVG document (with width/height attributes) to a PNG blob. */
export async function pngBlob(svg, scale = 2) {
  const width = Number(/width="(\d+(?:\.\d+)?)"/.exec(svg)?.[1] ?? 800);
  const height = Number(/height="(\d+(?:\.\d+)?)"/.exec(svg)?.[1] ?? 600);
  const url = URL.createObjectURL(svgBlob(svg));
  try {
    const img = new Image();
    img.src = url;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(width * scale);
    canvas.height = Math.round(height * scale);
    const ctx = canvas.getContext('2d');
    ctx.scale(scale, scale);
    ctx.drawImage(img, 0, 0, width, height);
    return await new Promise((ok, fail) => canvas.toBlob((b) => (b ? ok(b) : fail(new Error('PNG encoding failed'))), 'image/png'));
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** Downloads `svg` as `${base}.svg` or `${base}.png`. */
export async function exportAs(format, svg, base) {
  if (format === 'svg') download(svgBlob(svg), `${base}.svg`);
  else download(await pngBlob(svg), `${base}.png`);
}
