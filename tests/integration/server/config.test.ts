/** The proxy's environment: defaults, and the combinations it refuses with a message saying what to set. */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { configFromEnv } from "../../../src/server/config";

describe("configFromEnv", () => {
  it("has the documented defaults (sandbox mode, loopback, 1 MiB, 60/min)", () => {
    const config = configFromEnv({});
    expect(config).toMatchObject({
      port: 5173,
      host: "127.0.0.1",
      dataDir: path.resolve(".data"),
      mode: "sandbox",
      upstreamUrl: null,
      apiKey: "sbx_payg_demo",
      cacheTtlMs: 60_000,
      maxBodyBytes: 1024 * 1024,
      rate: { perWindow: 60, windowMs: 60_000, queueTimeoutMs: 15_000 },
      timeouts: { defaultMs: 10_000 },
      secureCookies: false,
      logLevel: "info",
    });
    expect(config.timeouts.byOperation.exportStart).toBe(30_000);
    expect(config.timeouts.byOperation.batchV2).toBe(30_000);
    expect(config.timeouts.byOperation.count).toBeUndefined();
    expect(configFromEnv({ SANDBOX_KEY: "sbx_ayce_demo" }).apiKey).toBe("sbx_ayce_demo");
    expect(configFromEnv({ UPSTREAM_URL: "" }).mode).toBe("sandbox");
  });

  it("takes the real service with a key from env or file", () => {
    const live = configFromEnv({ UPSTREAM_URL: "https://api.revenuebase.ai/", API_KEY: "k_live_1" });
    expect(live).toMatchObject({
      mode: "live",
      upstreamUrl: "https://api.revenuebase.ai",
      apiKey: "k_live_1",
    });
    const fromFile = configFromEnv({ UPSTREAM_URL: "https://api.revenuebase.ai", API_KEY_FILE: "key.txt" });
    expect(fromFile).toMatchObject({ apiKey: null, apiKeyFile: path.resolve("key.txt") });
    expect(configFromEnv({ UPSTREAM_URL: "http://127.0.0.1:8787", API_KEY: "k" }).mode).toBe("live");
  });

  it("refuses bad combinations with clear messages", () => {
    const refusals: [Record<string, string>, RegExp][] = [
      [{ UPSTREAM_URL: "https://api.revenuebase.ai" }, /API_KEY or API_KEY_FILE/],
      [{ UPSTREAM_URL: "https://api.revenuebase.ai", API_KEY: "a", API_KEY_FILE: "b" }, /not both/],
      [{ API_KEY: "a" }, /need UPSTREAM_URL/],
      [{ UPSTREAM_URL: "http://api.revenuebase.ai", API_KEY: "a" }, /in clear/],
      [{ UPSTREAM_URL: "ftp://x", API_KEY: "a" }, /http\(s\)/],
      [{ UPSTREAM_URL: "https://user:pw@api.example", API_KEY: "a" }, /plain base address/],
      [{ UPSTREAM_URL: "not a url", API_KEY: "a" }, /not an address/],
      [{ PORT: "99999" }, /PORT/],
      [{ CACHE_TTL_MS: "-1" }, /CACHE_TTL_MS/],
      [{ LOG_LEVEL: "loud" }, /LOG_LEVEL/],
      [{ PUBLIC_ORIGIN: "https://a.example/path" }, /bare origin/],
      [{ PUBLIC_HOSTS: "https://a.example" }, /not a host name/],
      [{ UPSTREAM_TIMEOUTS: "nosuchop=5" }, /UPSTREAM_TIMEOUTS/],
      [{ SECURE_COOKIES: "maybe" }, /SECURE_COOKIES/],
    ];
    for (const [env, message] of refusals)
      expect(() => configFromEnv(env), JSON.stringify(env)).toThrow(message);
    expect(
      configFromEnv({ UPSTREAM_URL: "http://10.0.0.5", API_KEY: "a", ALLOW_INSECURE_UPSTREAM: "1" }).mode,
    ).toBe("live");
  });

  it("adds PUBLIC_ORIGIN's host to the served names and makes cookies Secure for https", () => {
    const config = configFromEnv({
      PUBLIC_HOSTS: "Audiences.Example.com, intra:8080",
      PUBLIC_ORIGIN: "https://a.example.com",
    });
    expect(config.publicHosts).toEqual(["audiences.example.com", "intra:8080", "a.example.com"]);
    expect(config.secureCookies).toBe(true);
  });
});
