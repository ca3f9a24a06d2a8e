import { describe, expect, it } from "vitest";
import { classifyAddress, isPublicAddress } from "@/server/capabilities";

describe("classifyAddress", () => {
  it.each([
    ["10.0.0.5", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["169.254.169.254", "link-local"],
    ["100.64.0.1", "cgnat"],
    ["100.127.255.254", "cgnat"],
    ["0.0.0.0", "unspecified"],
    ["224.0.0.251", "multicast"],
    ["239.255.255.250", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["240.0.0.1", "reserved"],
    ["198.18.0.1", "reserved"],
    ["192.0.2.10", "documentation"],
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["fc00::1", "unique-local"],
    ["fd12:3456::1", "unique-local"],
    ["fec0::1", "private"],
    ["ff02::1", "multicast"],
    ["::ffff:127.0.0.1", "loopback"], // IPv4-mapped, dotted
    ["::ffff:7f00:1", "loopback"], // IPv4-mapped, hex (how URL serialises it)
    ["::ffff:10.1.2.3", "private"],
    ["::ffff:a9fe:a9fe", "link-local"], // 169.254.169.254
    ["::127.0.0.1", "loopback"], // IPv4-compatible
    ["64:ff9b::a00:1", "private"], // NAT64 of 10.0.0.1
    ["2002:7f00:1::", "loopback"], // 6to4 of 127.0.0.1
    ["2001:db8::1", "documentation"],
    ["2001::1", "reserved"], // Teredo
    ["100::1", "reserved"],
    ["not-an-ip", "invalid"],
    ["1.2.3", "invalid"],
  ])("%s → %s", (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    "8.8.8.8",
    "93.184.216.34",
    "172.32.0.1",
    "100.128.0.1",
    "2606:4700:4700::1111",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
  ])("%s is public", (address) => {
    expect(classifyAddress(address)).toBe("public");
    expect(isPublicAddress(address)).toBe(true);
  });
});
