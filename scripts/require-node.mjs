/**
 * Fails loudly when an npm script runs on another Node.js major than package.json `engines.node` asks for.
 * `npm install` brings Node 24 as the `node` package (node_modules/.bin/node), which npm scripts run on;
 * when that install script was skipped, every script would silently run on the machine's Node instead.
 * Imported first by start, worker, demo and bench; run by .ci/run; checked by tests/unit/node-runtime.test.ts.
 */
import fs from "node:fs";

const pkg = JSON.parse(fs.readFileSync(new URL("../package.json", import.meta.url), "utf8"));

/** The major version `engines.node` requires (">=24 <25" → 24). */
export const requiredNodeMajor = Number(/(\d+)/.exec(pkg.engines.node)?.[1]);

export function nodeRuntimeProblem(version = process.versions.node) {
  const major = Number(version.split(".")[0]);
  if (major === requiredNodeMajor) return null;
  return (
    `Bellwether runs on Node.js ${requiredNodeMajor}, but this script runs on Node.js ${version}. ` +
    "Run `npm install` (it installs the Node.js runtime the npm scripts use, node_modules/.bin/node) " +
    "and start it through npm (npm start, npm test, npm run …)."
  );
}

const problem = nodeRuntimeProblem();
if (problem) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
