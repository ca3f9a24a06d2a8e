// Preloaded (NODE_OPTIONS=--import) into the app that `npm run bench -- memory` starts. Inert unless its variables
// are set; npm, the launcher and the Next server all load it. Plain JavaScript: it runs before any loader.
//
// BELLWETHER_BENCH_CLOCK_FILE: moves the app's wall clock forward by the number of milliseconds written to that file
// (re-read every 100 ms), so the trackers one cron pass refreshed are due again for the next pass without waiting
// their 15 minutes — as if the scheduler ran every 20 minutes. Only `Date` moves; timers and `performance.now()` do not.
//
// BELLWETHER_BENCH_REPORT_DIR: on SIGUSR2 the process writes `<dir>/<pid>.json` — process.memoryUsage(), V8's heap
// spaces and the size of every WebAssembly memory it created (PGlite's database, Prisma's query compiler) — so the
// benchmark can say which part of the resident memory grows.
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import path from "node:path";
import v8 from "node:v8";
import workerThreads from "node:worker_threads";

const clockFile = process.env.BELLWETHER_BENCH_CLOCK_FILE;
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
  setInterval(read, 100).unref();
  RealDate.now = () => realNow() + offset;
  globalThis.Date = new Proxy(RealDate, {
    construct: (target, args, newTarget) =>
      Reflect.construct(target, args.length > 0 ? args : [realNow() + offset], newTarget),
    apply: () => new RealDate(realNow() + offset).toString(),
  });
}

const reportDir = process.env.BELLWETHER_BENCH_REPORT_DIR;
if (reportDir) {
  /** Every WebAssembly memory this thread created or instantiated, weakly held. */
  const memories = new Set();
  const seen = new WeakSet();
  const RealMemory = WebAssembly.Memory;
  const remember = (memory) => {
    if (!(memory instanceof RealMemory) || seen.has(memory)) return;
    seen.add(memory);
    memories.add(new WeakRef(memory));
  };
  const rememberExports = (instance) => {
    for (const value of Object.values(instance?.exports ?? {})) remember(value);
  };
  WebAssembly.Memory = new Proxy(RealMemory, {
    construct: (target, args, newTarget) => {
      const memory = Reflect.construct(target, args, newTarget);
      remember(memory);
      return memory;
    },
  });
  const RealInstance = WebAssembly.Instance;
  WebAssembly.Instance = new Proxy(RealInstance, {
    construct: (target, args, newTarget) => {
      const instance = Reflect.construct(target, args, newTarget);
      rememberExports(instance);
      return instance;
    },
  });
  const instantiate = WebAssembly.instantiate;
  WebAssembly.instantiate = async (...args) => {
    const result = await instantiate.apply(WebAssembly, args);
    rememberExports(result instanceof RealInstance ? result : result.instance);
    return result;
  };
  if (WebAssembly.instantiateStreaming) {
    const streaming = WebAssembly.instantiateStreaming;
    WebAssembly.instantiateStreaming = async (...args) => {
      const result = await streaming.apply(WebAssembly, args);
      rememberExports(result.instance);
      return result;
    };
  }
  /** Worker threads (the page readers), weakly held, for their own heap figures. */
  const workers = new Set();
  const RealWorker = workerThreads.Worker;
  workerThreads.Worker = new Proxy(RealWorker, {
    construct: (target, args, newTarget) => {
      const worker = Reflect.construct(target, args, newTarget);
      const ref = new WeakRef(worker);
      workers.add(ref);
      worker.once("exit", () => workers.delete(ref));
      return worker;
    },
  });
  syncBuiltinESMExports(); // `import { Worker } from "node:worker_threads"` sees the wrapper too
  process.on("SIGUSR2", async () => {
    const workerHeaps = [];
    for (const ref of workers) {
      const worker = ref.deref();
      if (!worker) continue;
      try {
        const stats = await worker.getHeapStatistics();
        workerHeaps.push({ total: stats.total_heap_size, used: stats.used_heap_size });
      } catch {
        // exited meanwhile
      }
    }
    const wasm = [];
    for (const ref of memories) {
      const memory = ref.deref();
      if (memory) wasm.push(memory.buffer.byteLength);
      else memories.delete(ref);
    }
    const report = {
      title: process.title,
      memoryUsage: process.memoryUsage(),
      heapSpaces: Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, s.space_used_size])),
      wasmMemories: wasm.sort((a, b) => b - a),
      workerHeaps,
    };
    const file = path.join(reportDir, `${process.pid}.json`);
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(report));
    fs.renameSync(`${file}.tmp`, file);
  });
}
