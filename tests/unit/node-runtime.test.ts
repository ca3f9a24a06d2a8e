import { describe, expect, it } from "vitest";
import { nodeRuntimeProblem, requiredNodeMajor } from "../../scripts/require-node.mjs";

describe("Node.js runtime", () => {
  it("npm scripts run on the major version package.json requires (the `node` package's runtime)", () => {
    expect(requiredNodeMajor).toBe(24);
    expect(process.versions.node.split(".")[0]).toBe(String(requiredNodeMajor));
    expect(nodeRuntimeProblem()).toBeNull();
  });

  it("another major is refused with a message that says what to do", () => {
    expect(nodeRuntimeProblem("20.20.2")).toMatch(
      /runs on Node\.js 24, but this script runs on Node\.js 20\.20\.2.*npm install/,
    );
    expect(nodeRuntimeProblem("22.23.3")).not.toBeNull();
    expect(nodeRuntimeProblem("26.0.0")).not.toBeNull();
  });
});
