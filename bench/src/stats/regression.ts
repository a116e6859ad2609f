export interface Fit {
  /** Change of y per unit of x. */
  slope: number;
  intercept: number;
  /** Share of the variance of y the line explains (0..1); 0 when y does not vary. */
  r2: number;
}

/** Ordinary least squares over (x, y) points. */
export function linearFit(points: readonly { x: number; y: number }[]): Fit {
  const n = points.length;
  if (n < 2) return { slope: 0, intercept: points[0]?.y ?? 0, r2: 0 };
  let sx = 0;
  let sy = 0;
  for (const { x, y } of points) {
    sx += x;
    sy += y;
  }
  const mx = sx / n;
  const my = sy / n;
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (const { x, y } of points) {
    sxx += (x - mx) ** 2;
    sxy += (x - mx) * (y - my);
    syy += (y - my) ** 2;
  }
  if (sxx === 0) return { slope: 0, intercept: my, r2: 0 };
  const slope = sxy / sxx;
  return { slope, intercept: my - slope * mx, r2: syy === 0 ? 0 : (sxy * sxy) / (sxx * syy) };
}
