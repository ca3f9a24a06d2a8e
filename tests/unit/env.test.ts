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
    // Costly endpoints: 30 setup turns per 10 minutes, 20 refreshes per minute, per person; no token budget.
    expect([env.RATE_LIMIT_SETUP_TURNS, env.RATE_LIMIT_SETUP_WINDOW_SECONDS]).toEqual([30, 600]);
    expect([env.RATE_LIMIT_REFRESHES, env.RATE_LIMIT_REFRESH_WINDOW_SECONDS]).toEqual([20, 60]);
    expect([env.RATE_LIMIT_REPLAYS, env.RATE_LIMIT_REPLAY_WINDOW_SECONDS]).toEqual([10, 60]);
    expect(env.AI_MONTHLY_TOKEN_BUDGET).toBeUndefined();
  });

  it("reads the capture retention period: 90 days by default, at least 1", () => {
    expect(parseEnv({}).CAPTURE_RETENTION_DAYS).toBe(90);
    expect(parseEnv({ CAPTURE_RETENTION_DAYS: "30" }).CAPTURE_RETENTION_DAYS).toBe(30);
    expect(() => parseEnv({ CAPTURE_RETENTION_DAYS: "0" })).toThrow(/CAPTURE_RETENTION_DAYS/);
    expect(() => parseEnv({ CAPTURE_RETENTION_DAYS: "1.5" })).toThrow(/CAPTURE_RETENTION_DAYS/);
    expect(() => parseEnv({ CAPTURE_RETENTION_DAYS: "a month" })).toThrow(/CAPTURE_RETENTION_DAYS/);
  });

  it("reads the rate limits and the monthly token budget; 0 turns a limit off, an empty budget is unlimited", () => {
    const env = parseEnv({ RATE_LIMIT_REFRESHES: "0", AI_MONTHLY_TOKEN_BUDGET: "250000" });
    expect(env.RATE_LIMIT_REFRESHES).toBe(0);
    expect(env.AI_MONTHLY_TOKEN_BUDGET).toBe(250_000);
    expect(parseEnv({ AI_MONTHLY_TOKEN_BUDGET: " " }).AI_MONTHLY_TOKEN_BUDGET).toBeUndefined();
    expect(() => parseEnv({ AI_MONTHLY_TOKEN_BUDGET: "0" })).toThrow(/AI_MONTHLY_TOKEN_BUDGET/);
    expect(() => parseEnv({ RATE_LIMIT_SETUP_WINDOW_SECONDS: "0" })).toThrow(/RATE_LIMIT_SETUP_WINDOW_SECONDS/);
  });

  it("reads the browser for rendered pages: an absolute executable or a ws endpoint, not both, and its limits", () => {
    const local = parseEnv({ BROWSER_EXECUTABLE_PATH: "/usr/bin/chromium", BROWSER_CONCURRENCY: "3" });
    expect(local.BROWSER_EXECUTABLE_PATH).toBe("/usr/bin/chromium");
    expect(local.BROWSER_CONCURRENCY).toBe(3);
    expect(parseEnv({}).BROWSER_EXECUTABLE_PATH).toBeUndefined();
    expect(parseEnv({ BROWSER_WS_ENDPOINT: "wss://browser.example/cdp?token=x" }).BROWSER_WS_ENDPOINT).toMatch(/^wss:/);
    expect(() => parseEnv({ BROWSER_EXECUTABLE_PATH: "chromium" })).toThrow(
      /BROWSER_EXECUTABLE_PATH must be an absolute path/,
    );
    expect(() => parseEnv({ BROWSER_WS_ENDPOINT: "ftp://x" })).toThrow(/BROWSER_WS_ENDPOINT/);
    expect(() =>
      parseEnv({ BROWSER_EXECUTABLE_PATH: "/usr/bin/chromium", BROWSER_WS_ENDPOINT: "ws://127.0.0.1:9222" }),
    ).toThrow(/BROWSER_WS_ENDPOINT cannot be set together with BROWSER_EXECUTABLE_PATH/);
    expect(() => parseEnv({ BROWSER_PAGE_TIMEOUT_MS: "10" })).toThrow(/BROWSER_PAGE_TIMEOUT_MS/);
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

  describe("settings that only make sense together (the same rules getEnv() and npm start apply)", () => {
    const problem = (vars: Record<string, string>) => {
      try {
        parseEnv(vars);
        return undefined;
      } catch (error) {
        expect(error).toBeInstanceOf(EnvError);
        expect((error as Error).message).not.toContain("\n");
        return (error as Error).message;
      }
    };

    it("refuses AI_PROVIDER=openai-compatible without OPENAI_BASE_URL, saying what to set", () => {
      expect(problem({ AI_PROVIDER: "openai-compatible", AI_MODEL: "llama3.1" })).toMatch(
        /^Invalid configuration: OPENAI_BASE_URL is required when AI_PROVIDER=openai-compatible: set it to .*http:\/\//,
      );
    });

    it("refuses OPENAI_BASE_URL without a model name, listing the roles still unnamed", () => {
      expect(problem({ OPENAI_BASE_URL: "http://127.0.0.1:11434/v1" })).toMatch(
        /^Invalid configuration: AI_MODEL is required with OPENAI_BASE_URL: .*AI_MODEL_DRAFTER/,
      );
      expect(
        problem({ OPENAI_BASE_URL: "http://127.0.0.1:11434/v1", AI_MODEL_DRAFTER: "a", AI_MODEL_FILLER: "b" }),
      ).toMatch(/set AI_MODEL_JUDGE, AI_MODEL_ENHANCER\)$/);
      expect(problem({ OPENAI_BASE_URL: "http://127.0.0.1:11434/v1", AI_MODEL: "llama3.1" })).toBeUndefined();
    });

    it("refuses AI_PROVIDER=openai without a key, and never echoes other values", () => {
      const message = problem({ AI_PROVIDER: "openai", OPENAI_BASE_URL: "https://user:pa55word@proxy.example/v1" });
      expect(message).toMatch(/^Invalid configuration: OPENAI_API_KEY is required when AI_PROVIDER=openai/);
      expect(message).not.toContain("pa55word");
    });

    it("lets AI_PROVIDER=rules override everything else", () => {
      expect(problem({ AI_PROVIDER: "rules", OPENAI_BASE_URL: "http://127.0.0.1:11434/v1" })).toBeUndefined();
    });

    it("refuses the embedded database on a serverless host, naming the host's variable", () => {
      expect(problem({ VERCEL: "1" })).toMatch(
        /^Invalid configuration: DATABASE_URL is required on a serverless host \(VERCEL is set\)/,
      );
      expect(problem({ AWS_LAMBDA_FUNCTION_NAME: "app", PGLITE_STORAGE: "memory" })).toMatch(
        /DATABASE_URL is required on a serverless host \(AWS_LAMBDA_FUNCTION_NAME is set\)/,
      );
      expect(problem({ VERCEL: "1", DATABASE_URL: "postgresql://u@db.example/app" })).toBeUndefined();
    });

    it("reports every cross-field problem at once", () => {
      const message = problem({ VERCEL: "1", AI_PROVIDER: "openai" });
      expect(message).toMatch(/OPENAI_API_KEY/);
      expect(message).toMatch(/DATABASE_URL/);
    });
  });

  it("has bounded defaults for the start-up wait and the shutdown grace period", () => {
    const env = parseEnv({});
    expect(env.DATABASE_WAIT_MS).toBe(10_000);
    expect(env.SHUTDOWN_GRACE_MS).toBe(10_000);
    expect(() => parseEnv({ SHUTDOWN_GRACE_MS: "-1" })).toThrow(/SHUTDOWN_GRACE_MS/);
  });
});
