// A preload (`node --import ./bench/gc-profile.mjs bench/gateway-adapter.mjs`, or bench/rest-adapter.mjs): what the garbage
// collector saw between an adapter's `process.cpuUsage()` and `process.cpuUsage(start)` (its measured window), from
// v8.GCProfiler, per event (gateway: COUNT) or per call (REST: REQUESTS), printed to stderr as one `GC {...}` line per window
// (the last is the measured one): bytes allocated (heap used at the end, minus at the start, plus what each collection
// freed), scavenges per 10,000, collector time, and the young generation left after a scavenge (what in-flight work keeps).
// Not part of `npm run bench`: it measures garbage, not time (its own bookkeeping adds to peak RSS).
import v8 from 'node:v8';

const cpuUsage = process.cpuUsage.bind(process);
const count = Number(process.env.COUNT ?? process.env.REQUESTS ?? 1);
let profiler;
let startUsed = 0;

process.cpuUsage = (previous) => {
  if (previous === undefined) {
    profiler?.stop();
    profiler = new v8.GCProfiler();
    startUsed = v8.getHeapStatistics().used_heap_size;
    profiler.start();
    return cpuUsage();
  }
  const used = cpuUsage(previous);
  const endUsed = v8.getHeapStatistics().used_heap_size;
  const { statistics } = profiler.stop();
  profiler = undefined;
  let freed = 0;
  let costUs = 0;
  let scavenges = 0;
  let youngAfter = 0;
  for (const gc of statistics) {
    costUs += gc.cost;
    freed += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize;
    if (gc.gcType !== 'Scavenge') continue;
    scavenges++;
    youngAfter += gc.afterGC.heapSpaceStatistics.find((space) => space.spaceName === 'new_space')?.spaceUsedSize ?? 0;
  }
  const line = {
    bytesPerUnit: Math.round((endUsed - startUsed + freed) / count),
    scavengesPer10k: (scavenges * 10_000) / count,
    gcUsPerUnit: Number((costUs / count).toFixed(3)),
    youngAfterScavengeKB: scavenges === 0 ? 0 : Math.round(youngAfter / scavenges / 1024),
  };
  process.stderr.write(`GC ${JSON.stringify(line)}\n`);
  return used;
};
