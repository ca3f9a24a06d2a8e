import { describe, expect, it } from "vitest";
import { describeStoredHistory, formatBytes } from "@/components/trackers/format";

describe("the tracker page's stored-history line (docs/replay.md)", () => {
  it("formats bytes readably", () => {
    expect(formatBytes(0)).toBe("0 B");
    expect(formatBytes(999)).toBe("999 B");
    expect(formatBytes(1000)).toBe("1.0 KB");
    expect(formatBytes(4_240)).toBe("4.2 KB");
    expect(formatBytes(212_345)).toBe("212 KB");
    expect(formatBytes(999_600)).toBe("1.0 MB");
    expect(formatBytes(1_340_000)).toBe("1.3 MB");
    expect(formatBytes(52_000_000)).toBe("52 MB");
    expect(formatBytes(3_100_000_000)).toBe("3.1 GB");
  });

  it("says how much is kept, or that nothing is yet", () => {
    expect(describeStoredHistory({ captures: 38, bytes: 212_000 })).toBe(
      "Stored history: 38 captures · 212 KB (for replaying definition edits)",
    );
    expect(describeStoredHistory({ captures: 1, bytes: 900 })).toBe(
      "Stored history: 1 capture · 900 B (for replaying definition edits)",
    );
    expect(describeStoredHistory({ captures: 0, bytes: 0 })).toBe("No stored history yet");
  });
});
