import { describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "../../server/env";

describe("parseEnv", () => {
  it("gives working defaults for an empty environment (embedded database, rules mode)", () => {
    const env = parseEnv({});
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.DATA_DIR).toBe("./.data");
    expect(env.PORT).toBe(3000);
    expect(env.AI_PROVIDER).toBe("auto");
    expect(env.FETCH_ALLOW_HOSTS).toEqual([]);
  });

  it("treats empty strings as unset", () => {
    const env = parseEnv({ DATABASE_URL: "", OPENAI_BASE_URL: " ", OPENAI_API_KEY: "" });
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.OPENAI_BASE_URL).toBeUndefined();
    expect(env.OPENAI_API_KEY).toBeUndefined();
  });

  it("rejects a malformed DATABASE_URL with a one-line error naming the variable", () => {
    const secret = "mysql://user:hunter2@db/app";
    let error: unknown;
    try {
      parseEnv({ DATABASE_URL: secret });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(EnvError);
    const message = (error as Error).message;
    expect(message).toMatch(/^Invalid configuration: DATABASE_URL /);
    expect(message).not.toContain("\n");
    expect(message).not.toContain("hunter2");
  });

  it("rejects an OPENAI_BASE_URL that is not a URL, naming the variable", () => {
    expect(() => parseEnv({ OPENAI_BASE_URL: "localhost:11434" })).toThrow(/OPENAI_BASE_URL must be an http/);
  });

  it("names every bad variable at once", () => {
    expect(() => parseEnv({ PORT: "http", OPENAI_BASE_URL: "nope" })).toThrow(
      /PORT.*OPENAI_BASE_URL|OPENAI_BASE_URL.*PORT/,
    );
  });

  it("parses the allow-list of fetch hosts", () => {
    expect(parseEnv({ FETCH_ALLOW_HOSTS: "Localhost:4000, 127.0.0.1 ,," }).FETCH_ALLOW_HOSTS).toEqual([
      "localhost:4000",
      "127.0.0.1",
    ]);
  });
});
