import { createRequire } from 'node:module';

// The benchmarks' one measurement: client CPU microseconds per call of `fn` (process.cpuUsage over `total` calls made by
// `concurrency` workers).
export async function measure(fn, total, concurrency) {
  let next = 0;
  const worker = async () => {
    while (next < total) {
      next++;
      await fn();
    }
  };
  const start = process.cpuUsage();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const used = process.cpuUsage(start);
  return (used.user + used.system) / total;
}

/** The median of a list of numbers. */
export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** Median and range of a list of numbers. */
export const summary = (values) => ({ median: median(values), min: Math.min(...values), max: Math.max(...values) });

/** Whether a peer is installed (a bench-only dev dependency). */
export function installed(name) {
  try {
    createRequire(import.meta.url).resolve(name);
    return true;
  } catch {
    return false;
  }
}
