import { describe, expect, it } from "vitest";
import { CONNECTION_LOST, refreshErrorMessage } from "@/components/trackers/refresh-error-message";

/** What "Refresh now" shows when the refresh could not start (the tRPC client error's message and data). */
describe("refreshErrorMessage", () => {
  it("a rate limit reads as a clear wait, from the retry time in the error's data", () => {
    const error = {
      message: "Too many refreshes — try again in 41 s.",
      data: { code: "TOO_MANY_REQUESTS", details: { retryAfterSeconds: 17 } },
    };
    expect(refreshErrorMessage(error)).toBe("Too many refreshes — try again in 17 s");
  });

  it("anything else is 'failed:' with the server's message", () => {
    expect(refreshErrorMessage({ message: "That tracker does not exist.", data: { code: "NOT_FOUND" } })).toBe(
      "failed: That tracker does not exist.",
    );
    // A rate limit without a usable retry time falls back to the server's own message.
    expect(refreshErrorMessage({ message: "Too many refreshes.", data: { code: "TOO_MANY_REQUESTS" } })).toBe(
      "failed: Too many refreshes.",
    );
  });

  it("an error the server did not send (the stream or the network gave way) says the connection was lost", () => {
    for (const error of [{ message: "" }, { message: "Network error" }, { message: "Failed to fetch", data: null }]) {
      expect(refreshErrorMessage(error)).toBe(CONNECTION_LOST);
    }
  });
});
