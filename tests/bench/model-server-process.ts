import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { modelServerControl, type TModelServerControl } from "../fixtures/model-server/control";
import type { TRecordingInput } from "../fixtures/model-server/recordings";
import { procStat } from "./proc-stat";

/**
 * The fixture model server in a process of its own (cli.ts), as a real provider is a server of its own: the benchmark
 * process then runs Bellwether's side of a model call (the AI SDK's request and the answer's parsing), not the
 * provider's (reading a 40 KB prompt, matching it, answering). Its CPU is read from /proc and reported apart.
 */
export type TModelServerProcess = TModelServerControl & {
  pid: number;
  /** utime + stime of the server process so far, ms (Linux; NaN elsewhere). */
  cpuMs(): number;
  close(): Promise<void>;
};

const CLI = fileURLToPath(new URL("../fixtures/model-server/cli.ts", import.meta.url));

export async function startModelServerProcess(recordings: readonly TRecordingInput[]): Promise<TModelServerProcess> {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", CLI, "--port", "0"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error("The fixture model server process did not start.");
  const stdout = child.stdout;
  if (!stdout) throw new Error("The fixture model server process has no stdout.");
  const first = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: stdout });
    lines.once("line", (line) => {
      lines.close();
      resolve(line);
    });
    child.once("exit", (code) =>
      reject(new Error(`The fixture model server exited with code ${code} before listening.`)),
    );
  });
  const { origin } = JSON.parse(first) as { origin: string };
  const control = modelServerControl(origin);
  await control.setRecordings(recordings);
  return {
    ...control,
    pid,
    cpuMs: () => procStat(pid)?.cpuMs ?? Number.NaN,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
