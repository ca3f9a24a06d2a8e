import fs from "node:fs";

/** Linux USER_HZ: /proc/<pid>/stat counts CPU time in these ticks. */
const TICKS_PER_SECOND = 100;

/**
 * A process's parent and CPU time so far (utime + stime, all threads, ms) from /proc/<pid>/stat, and that of its
 * children it has waited for (cutime + cstime); null when it is gone or this is not Linux. The fields after the
 * command name (which may hold spaces and parentheses) start at the last ")".
 */
export function procStat(pid: number): { ppid: number; cpuMs: number; childrenCpuMs: number } | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return {
      ppid: Number(fields[1]),
      cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND,
      childrenCpuMs: ((Number(fields[13]) + Number(fields[14])) * 1000) / TICKS_PER_SECOND,
    };
  } catch {
    return null;
  }
}
