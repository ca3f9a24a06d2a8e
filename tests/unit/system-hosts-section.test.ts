import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { HostsSection } from "@/components/system/hosts-section";

const settings = { maxInFlight: 2, minGapMs: 250, maxWaitMs: 5000 };

/** The System page's politeness per host (docs/scheduling.md), rendered as the server renders it. */
describe("System: politeness per host", () => {
  it("shows the limits, the busiest hosts and a host backed off with until when", () => {
    const html = renderToStaticMarkup(
      createElement(HostsSection, {
        hosts: {
          settings,
          busiest: [{ host: "shop.example.com", inFlight: 2, waiting: 1, lastMinute: 61 }],
          held: [{ host: "slow.example.org", until: new Date("2026-03-01T12:00:30Z"), remainingMs: 29_500 }],
        },
      }),
    );
    expect(html).toContain("Politeness per host");
    expect(html).toContain("2 requests in flight per host at most, starting at least 250 ms apart");
    expect(html).toContain("<code>shop.example.com</code> · 2 in flight · 1 waiting · 61 requests in the last minute");
    expect(html).toContain("<code>slow.example.org</code> asked us to wait");
    expect(html).toContain('dateTime="2026-03-01T12:00:30.000Z"');
    expect(html).toContain("29.5 s from now");
  });

  it("says when nothing is going on, and hides host names from members", () => {
    const idle = renderToStaticMarkup(createElement(HostsSection, { hosts: { settings, busiest: [], held: [] } }));
    expect(idle).toContain("No requests in the last minute.");
    expect(idle).toContain("No host has asked us to wait.");
    const member = renderToStaticMarkup(
      createElement(HostsSection, { hosts: { settings, busiest: null, held: null } }),
    );
    expect(member).toContain("Only the owner of this Bellwether sees which sites are being read.");
    expect(member).not.toContain("in the last minute");
  });
});
