/**
 * Finds a Chromium for Playwright. Browsers cannot be downloaded on these machines (no CDN access), so
 * the tests drive the system Chromium: CHROMIUM_PATH, then the usual install locations. As root on a
 * Debian/Ubuntu machine it installs the `chromium` package once; otherwise it fails with what to do.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";

const CANDIDATES = [
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
  "/usr/bin/google-chrome-stable",
  "/snap/bin/chromium",
  "/opt/google/chrome/chrome",
];

/** Headless in a container as root, and quiet on a closed network (Chromium as root in a container needs --no-sandbox; nothing may reach the network). */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export class ChromiumNotFoundError extends Error {
  override name = "ChromiumNotFoundError";
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function canInstallWithApt(): boolean {
  return process.getuid?.() === 0 && isExecutable("/usr/bin/apt-get") && process.env.E2E_INSTALL_CHROMIUM !== "0";
}

function installWithApt(): void {
  process.stderr.write("[e2e] no Chromium found; installing the Debian package (apt-get install -y chromium)…\n");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const update = spawnSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
  if (update.status !== 0) return;
  spawnSync("apt-get", ["install", "-y", "-qq", "chromium"], { stdio: "inherit", env });
}

export function findChromium(opts: { candidates?: string[]; envPath?: string; install?: boolean } = {}): string {
  const envPath = opts.envPath ?? process.env.CHROMIUM_PATH;
  if (envPath) {
    if (isExecutable(envPath)) return envPath;
    throw new ChromiumNotFoundError(
      `CHROMIUM_PATH is set to ${envPath}, which is not an executable file. Point it at a Chromium or Chrome binary, or unset it to use /usr/bin/chromium.`,
    );
  }
  const candidates = opts.candidates ?? CANDIDATES;
  const found = candidates.find(isExecutable);
  if (found) return found;

  if ((opts.install ?? true) && canInstallWithApt()) {
    installWithApt();
    const installed = candidates.find(isExecutable);
    if (installed) return installed;
  }
  throw new ChromiumNotFoundError(
    `No Chromium found for the browser tests (looked for CHROMIUM_PATH, then ${candidates.join(", ")}). ` +
      "Install it with `apt-get install -y chromium` or set CHROMIUM_PATH to a Chromium/Chrome binary. " +
      "(`npx playwright install` cannot download browsers on this network.)",
  );
}
