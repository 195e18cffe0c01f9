import { serve } from "@hono/node-server";
import { createSandbox } from "./app";
import { sandboxOptionsFromEnv } from "./config";
import { SandboxStartError } from "./state/damage";

/** `npm run sandbox`: the sandbox alone, listening only once it can answer. */
const { options, port, host } = sandboxOptionsFromEnv();
const started = Date.now();
let sandbox: Awaited<ReturnType<typeof createSandbox>>;
try {
  sandbox = await createSandbox({ ...options, onProgress: console.log });
} catch (error) {
  // A data folder or a kept file it cannot use: one line saying what and how, not a stack trace.
  if (!(error instanceof SandboxStartError)) throw error;
  console.error(`refusing to start: ${error.message}`);
  process.exit(1);
}
const server = serve({ fetch: sandbox.app.fetch, port, hostname: host }, (info) => {
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(
    `sandbox ready on http://${host}:${info.port} (${options.rows.toLocaleString("en-US")} contacts, ${seconds} s)`,
  );
});

for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, async () => {
    server.close();
    await sandbox.close();
    process.exit(0);
  });
