// `npm start`'s readiness report (scripts/start.ts starts it just before it becomes the server): asks the server to
// open the database by calling /api/health once it listens, prints "[bellwether] ready in … — rss …" with the
// resident memory of the app (the server and the processes it forks; not this one), and exits. It also exits when
// the server does. Plain JavaScript on purpose: it must stay small, since it runs beside the server for a moment.
// Arguments: [--detach] <port> <start time of npm start, ms since the epoch> <server pid>.
// With --detach it starts a copy of itself outside the server's children and exits at once: a child the server did
// not start itself would never be reaped by it and stay behind as a defunct entry.
import { spawn } from "node:child_process";
import fs from "node:fs";
import { fileURLToPath } from "node:url";

if (process.argv[2] === "--detach") {
  spawn(process.execPath, [fileURLToPath(import.meta.url), ...process.argv.slice(3)], {
    detached: true,
    stdio: ["ignore", "inherit", "inherit"],
  }).unref();
  process.exit(0);
}

const [port, startedAt, server] = process.argv.slice(2).map(Number);
const say = (line) => process.stdout.write(`[bellwether] ${line}\n`);

function serverAlive() {
  try {
    process.kill(server, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
  }
}

/** pid → parent pid for every process, from /proc/<pid>/stat (Linux; elsewhere the figure is "unknown"). */
function parents() {
  const out = new Map();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      // Fields after the command name, which is in parentheses and may contain spaces.
      out.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

function appRss() {
  try {
    const byParent = parents();
    const tree = new Set([server]);
    for (let grew = true; grew; ) {
      grew = false;
      for (const [pid, ppid] of byParent) {
        if (tree.has(ppid) && !tree.has(pid) && pid !== process.pid) {
          tree.add(pid);
          grew = true;
        }
      }
    }
    let kb = 0;
    for (const pid of tree) {
      try {
        kb += Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
      } catch {
        // gone meanwhile
      }
    }
    return `${Math.round(kb / 1024)} MB`;
  } catch {
    return "unknown";
  }
}

const deadline = Date.now() + 120_000;
while (Date.now() < deadline && serverAlive()) {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/api/health`, { signal: AbortSignal.timeout(60_000) });
    const body = await res.json();
    if (!serverAlive()) break;
    if (res.ok && body.ok) {
      say(
        `ready in ${((Date.now() - startedAt) / 1000).toFixed(1)} s (database: ${body.database?.kind}) — rss ${appRss()}`,
      );
      // What keeps the trackers refreshed (docs/scheduling.md): this server, or something the operator runs.
      const scheduler = body.scheduler;
      if (scheduler?.enabled)
        say(`scheduler ${scheduler.reason}: due trackers refresh and notifications go out on their own`);
      else if (scheduler)
        say(`scheduler ${scheduler.reason}; trackers refresh only through /api/cron/refresh or npm run worker`);
    } else {
      const why = body.database?.reason ? `: ${body.database.reason}` : "";
      say(`warning: the database is not healthy${why}; see the server log above.`);
    }
    break;
  } catch {
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
