/**
 * `npm run auth:reset-password -- --email owner@example.com`: sets a new password for an account (the way back in
 * for an owner who forgot theirs) and signs that account out everywhere.
 *
 * The new password is read from standard input when it is piped (`printf '%s\n' "$PW" | npm run …`), otherwise
 * asked for twice without echo. Works on the configured database: DATABASE_URL, or the embedded one in DATA_DIR
 * (stop the app first: the embedded database belongs to one process at a time).
 */
import "./require-node.mjs"; // first: refuse to run on another Node.js major
import { parseEnvOrExit } from "../server/env";

const fail = (line: string): never => {
  process.stderr.write(`${line}\n`);
  process.exit(1);
};

function argument(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  if (i >= 0) return process.argv[i + 1];
  return process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

async function readPiped(): Promise<string> {
  let text = "";
  for await (const chunk of process.stdin) text += chunk;
  return text.replace(/\r?\n$/, "");
}

/** One line from the terminal without echoing it. */
function askHidden(question: string): Promise<string> {
  return new Promise((resolve) => {
    const stdin = process.stdin;
    process.stdout.write(question);
    stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding("utf8");
    let value = "";
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === "\r" || ch === "\n") {
          stdin.off("data", onData);
          stdin.setRawMode(false);
          stdin.pause();
          process.stdout.write("\n");
          resolve(value);
          return;
        }
        if (ch === "\u0003") {
          process.stdout.write("\n");
          process.exit(130);
        }
        if (ch === "\u007f" || ch === "\b") value = value.slice(0, -1);
        else value += ch;
      }
    };
    stdin.on("data", onData);
  });
}

async function main() {
  const env = parseEnvOrExit();
  const email = argument("email");
  if (!email) fail("Usage: npm run auth:reset-password -- --email you@example.com  (new password on stdin, or asked)");

  let password: string;
  if (process.stdin.isTTY) {
    password = await askHidden("New password: ");
    if ((await askHidden("New password again: ")) !== password)
      fail("The two passwords do not match; nothing changed.");
  } else {
    password = await readPiped();
  }

  // Checked before the database is opened, so a weak password fails at once (resetPassword checks again).
  const { ZPasswordSchema } = await import("../contracts/account");
  const checked = ZPasswordSchema.safeParse(password);
  if (!checked.success) fail(`${checked.error.issues[0]?.message ?? "Choose another password."} Nothing changed.`);

  const [{ createPgliteDb, createPostgresDb }, { embeddedDatabaseDir }, { resetPassword }, { isAppError }] =
    await Promise.all([
      import("../server/db"),
      import("../server/db-pglite"),
      import("../server/auth/reset-password"),
      import("../server/errors"),
    ]);
  const handle = env.DATABASE_URL
    ? await createPostgresDb(env.DATABASE_URL, { checkMigrations: true })
    : await createPgliteDb({ dataDir: embeddedDatabaseDir(env.DATA_DIR) });
  try {
    const result = await resetPassword(handle.db, { email: email ?? "", newPassword: password });
    process.stdout.write(
      `Password changed for ${email?.trim().toLowerCase()}; signed out of ${result.sessionsRevoked} session(s). Sign in with the new password.\n`,
    );
  } catch (error) {
    if (isAppError(error)) fail(`${error.message} Nothing changed.`);
    throw error;
  } finally {
    await handle.close();
  }
}

main().catch((error) => fail(`reset-password failed: ${error instanceof Error ? error.message : String(error)}`));
