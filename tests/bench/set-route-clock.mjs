// Preloaded (NODE_OPTIONS=--import) into the app that `npm run bench -- set` starts (set-route.ts). Inert unless
// BELLWETHER_BENCH_SIGNALLED_CLOCK_FILE is set. Plain JavaScript: it runs before any loader.
//
// Moves the app's wall clock forward by the number of milliseconds written to that file, re-read when the process
// gets SIGUSR2 (the benchmark signals the Next server, then waits for `<file>.<pid>.ack` to hold the offset read), so
// the trackers a cron call should find are due. Unlike app-preload.mjs, which re-reads its file every 100 ms, it does
// nothing while the app is idle: the benchmark measures the CPU of the whole process tree, and ten file reads a
// second in npm and in the server were ~8 ms of it per second. Only `Date` moves; timers and `performance.now()` do
// not.
import fs from "node:fs";

const clockFile = process.env.BELLWETHER_BENCH_SIGNALLED_CLOCK_FILE;
if (clockFile) {
  const RealDate = Date;
  const realNow = RealDate.now.bind(RealDate);
  let offset = 0;
  const read = () => {
    try {
      offset = Number(fs.readFileSync(clockFile, "utf8")) || 0;
    } catch {
      // not written yet
    }
  };
  read();
  process.on("SIGUSR2", () => {
    read();
    try {
      fs.writeFileSync(`${clockFile}.${process.pid}.ack`, String(offset));
    } catch {
      // the benchmark's directory is gone (it is stopping)
    }
  });
  RealDate.now = () => realNow() + offset;
  globalThis.Date = new Proxy(RealDate, {
    construct: (target, args, newTarget) =>
      Reflect.construct(target, args.length > 0 ? args : [realNow() + offset], newTarget),
    apply: () => new RealDate(realNow() + offset).toString(),
  });
}
