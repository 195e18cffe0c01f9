import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { createProxy } from "./server/app";
import { ConfigError, configFromEnv } from "./server/config";
import { serveProxy } from "./server/serve";
import { liveUpstream, type Upstream } from "./server/upstream/upstream";

/**
 * `npm start`: config -> upstream (the embedded sandbox in this process, or the real service) ->
 * proxy -> listen. The only file that knows both the proxy and the sandbox.
 */
/** What the browser bundle is built from; a change to any of it means the bundle is stale. */
const APP_SOURCES = ["src/app", "src/contract", "index.html", "public", "vite.config.ts"];

function newestChange(target: string): number {
  if (!existsSync(target)) return 0;
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(target).map((name) => newestChange(path.join(target, name))));
}

const secondsSince = (started: number) => `${((performance.now() - started) / 1000).toFixed(0)} s`;

/** Builds the SPA into dist/app when it is missing or older than its sources (so `npm start` just works). */
async function ensureAppBuilt(outDir: string) {
  const built = path.join(outDir, "index.html");
  if (existsSync(built) && statSync(built).mtimeMs >= Math.max(...APP_SOURCES.map(newestChange))) return;
  const started = performance.now();
  console.log(`building the app into ${outDir} (its sources changed, or a first start)…`);
  const { build } = await import("vite");
  await build({ logLevel: "warn", build: { outDir, emptyOutDir: true } });
  console.log(`app built in ${secondsSince(started)}`);
}

async function main() {
  const started = performance.now();
  // What this process writes (the key, the database, paid data in the spend journal) is this user's alone.
  process.umask(0o077);
  let config: ReturnType<typeof configFromEnv>;
  try {
    config = configFromEnv(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`refusing to start: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }

  await ensureAppBuilt(config.staticDir);

  let upstream: Upstream;
  let closeUpstream = async () => {};
  if (config.upstreamUrl) {
    upstream = liveUpstream(config.upstreamUrl);
  } else {
    // Loaded only here: in front of a live upstream the proxy holds no sandbox (DuckDB's library
    // and the sandbox's modules are tens of MB of a process meant to be light).
    const { createSandbox } = await import("./sandbox/app");
    const { sandboxOptionsFromEnv } = await import("./sandbox/config");
    const { SandboxStartError } = await import("./sandbox/state/damage");
    let sandbox: Awaited<ReturnType<typeof createSandbox>>;
    try {
      sandbox = await createSandbox({ ...sandboxOptionsFromEnv().options, onProgress: console.log });
    } catch (error) {
      // As for the proxy's ConfigError: one line that says what to fix, then exit 1.
      if (error instanceof SandboxStartError) {
        console.error(`refusing to start: ${error.message}`);
        process.exit(1);
      }
      throw error;
    }
    upstream = sandbox.fetch;
    closeUpstream = () => sandbox.close();
  }

  let proxy: Awaited<ReturnType<typeof createProxy>>;
  try {
    proxy = await createProxy(config, upstream);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`refusing to start: ${error.message}`);
      await closeUpstream();
      process.exit(1);
    }
    throw error;
  }
  let served: Awaited<ReturnType<typeof serveProxy>>;
  try {
    served = await serveProxy(proxy, { host: config.host, port: config.port });
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`refusing to start: ${error.message}`);
      await proxy.close();
      await closeUpstream();
      process.exit(1);
    }
    throw error;
  }
  console.log(`ready on ${served.url} (started in ${secondsSince(started)})`);

  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.once(signal, async () => {
      await served.close();
      await closeUpstream();
      process.exit(0);
    });
}

await main();
