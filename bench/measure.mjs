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
