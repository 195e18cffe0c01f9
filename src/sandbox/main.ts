import { serve } from "@hono/node-server";
import { createSandbox } from "./app";
import { sandboxOptionsFromEnv } from "./config";

/** `npm run sandbox`: the sandbox alone, listening only once it can answer. */
const { options, port, host } = sandboxOptionsFromEnv();
const started = Date.now();
const sandbox = await createSandbox(options);
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
