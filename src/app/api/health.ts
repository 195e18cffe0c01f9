import { z } from "zod";
import { getJson } from "./client";

/**
 * `GET /api/health`: the proxy's own answer (free, nothing spent) on whether the data service
 * answers it. While the service is down the proxy probes it, once a second at most, and answers
 * within two seconds; a little more than that is allowed here.
 */
export const healthSchema = z.object({ upstream: z.enum(["up", "down"]) });

const HEALTH_TIMEOUT_MS = 4000;

/** True when the proxy answers and says the service does too; throws (an ApiError) when it does not answer. */
export async function serverIsUp(): Promise<boolean> {
  // Past the browser's cache: it would hold one tab's question behind another's for the same URL
  // while the proxy waits for its probe, so five tabs asked one after the other.
  const answer = await getJson("health", healthSchema, { timeout: HEALTH_TIMEOUT_MS, cache: "no-store" });
  return answer.upstream === "up";
}
