import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { fixtureSiteControl, type TFixtureSiteControl } from "../fixtures/site/control";
import { procStat } from "./proc-stat";

const SITE_CLI = fileURLToPath(new URL("../fixtures/site/cli.ts", import.meta.url));

export type TSiteProcess = {
  control: TFixtureSiteControl;
  /** CPU ms the site's process has used so far (its serving, kept out of the sides measured). */
  cpuMs: () => number;
  close: () => Promise<void>;
};

/** The fixture site in a process of its own (tests/fixtures/site/cli.ts); its first stdout line is its address. */
export async function startSiteProcess(): Promise<TSiteProcess> {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", SITE_CLI, "--port", "0"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const pid = child.pid;
  const stdout = child.stdout;
  if (pid === undefined || !stdout) throw new Error("The fixture site process did not start.");
  const first = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: stdout });
    lines.once("line", (line) => {
      lines.close();
      resolve(line);
    });
    child.once("exit", (code) => reject(new Error(`The fixture site exited with code ${code} before listening.`)));
  });
  const { url } = JSON.parse(first) as { url: string };
  return {
    control: fixtureSiteControl(url),
    cpuMs: () => procStat(pid)?.cpuMs ?? Number.NaN,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
