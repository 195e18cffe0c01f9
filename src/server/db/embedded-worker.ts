/**
 * The embedded database (PGlite) on its folder, in a worker thread of the proxy: see
 * embedded-database.ts for why. It answers the queries posted to it, one at a time, in order.
 */
import { parentPort, workerData } from "node:worker_threads";
import { openDurable } from "./durable-folder";
import { describeError, type ToWorker } from "./embedded-messages";

const port = parentPort!;
const { folder } = workerData as { folder: string };

try {
  const pglite = await openDurable(folder);
  port.on("message", async (message: ToWorker) => {
    if (message.type === "close") {
      await pglite.close().catch(() => {});
      port.postMessage({ type: "closed" });
      return;
    }
    if (message.type === "dump") {
      try {
        // Whatever a checkpoint leaves in the log is replayed when the copy is opened, as after a
        // crash; the checkpoint only makes that short.
        await pglite.query("checkpoint");
        const bytes = await (await pglite.dumpDataDir("gzip")).arrayBuffer();
        port.postMessage({ type: "dumped", id: message.id, bytes }, [bytes]);
      } catch (error) {
        port.postMessage({ type: "error", id: message.id, error: describeError(error) });
      }
      return;
    }
    try {
      const result = await pglite.query(message.sql, message.params);
      port.postMessage({
        type: "result",
        id: message.id,
        rows: result.rows,
        affectedRows: result.affectedRows,
      });
    } catch (error) {
      port.postMessage({ type: "error", id: message.id, error: describeError(error) });
    }
  });
  port.postMessage({ type: "ready" });
} catch (error) {
  port.postMessage({ type: "failed", error: describeError(error) });
}
