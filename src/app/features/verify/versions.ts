import { ApiError } from "../../api/api-error";

/**
 * Which generation of the service's verification API answers an operation. v2 is the published
 * one and is always tried first; v1 is the seed's and is used only where v2 is absent (a 404 or
 * 405). A v1 answer of 410 means v1 is retired: v2 is the way. Both findings are remembered for
 * the session, so the next call goes straight to the generation that works.
 */
export type Generation = "v1" | "v2";

export interface GenerationMemory {
  /** Operations (by name) whose v2 path answered 404/405. */
  v2Absent: Set<string>;
  /** A v1 path answered 410 Gone. */
  v1Retired: boolean;
}

export function createGenerationMemory(): GenerationMemory {
  return { v2Absent: new Set(), v1Retired: false };
}

/** The app's memory: one per page load (a reload asks again, which is cheap and self-correcting). */
export const generationMemory = createGenerationMemory();

/** The path is not there: 404 Not Found or 405 Method Not Allowed. */
export function isAbsent(error: unknown): boolean {
  return error instanceof ApiError && (error.status === 404 || error.status === 405);
}

/** v1's answer once it was retired. */
export function isRetired(error: unknown): boolean {
  return error instanceof ApiError && error.status === 410;
}

export interface Attempts<T> {
  v2?: () => Promise<T>;
  v1?: () => Promise<T>;
}

export interface Answered<T> {
  value: T;
  generation: Generation;
}

/** Neither generation could do it: v2 is absent and v1 retired (or missing). */
export function noGenerationError(operation: string): ApiError {
  return new ApiError({
    kind: "not-found",
    status: 410,
    message: `The service offers this (${operation}) neither in API v2 nor in v1, which is retired. The app may need an update.`,
  });
}

/**
 * Runs `attempts.v2`, falling back to `attempts.v1` when v2 is absent; a v1 410 sends it to v2
 * (when v2 was skipped because the memory said it was absent, the memory was wrong). Any other
 * failure is thrown as it is: a 400, 402 or 422 from v2 is an answer, not a missing path.
 */
export async function preferV2<T>(
  operation: string,
  attempts: Attempts<T>,
  memory: GenerationMemory = generationMemory,
): Promise<Answered<T>> {
  const order: Generation[] = [];
  if (attempts.v2 && !memory.v2Absent.has(operation)) order.push("v2");
  if (attempts.v1 && !memory.v1Retired) order.push("v1");
  // Everything ruled out by the memory: try again anyway, v2 first (the service may have changed).
  if (order.length === 0) {
    if (attempts.v2) order.push("v2");
    else if (attempts.v1) order.push("v1");
  }
  const tried = new Set<Generation>();
  let lastError: unknown = null;
  while (order.length > 0) {
    const generation = order.shift() as Generation;
    const attempt = attempts[generation];
    if (!attempt || tried.has(generation)) continue;
    tried.add(generation);
    try {
      return { value: await attempt(), generation };
    } catch (error) {
      if (generation === "v2" && isAbsent(error)) {
        memory.v2Absent.add(operation);
        lastError = error;
        if (attempts.v1 && !tried.has("v1") && !order.includes("v1")) order.push("v1");
        continue;
      }
      if (generation === "v1" && isRetired(error)) {
        memory.v1Retired = true;
        lastError = error;
        if (attempts.v2 && !tried.has("v2")) order.push("v2");
        continue;
      }
      throw error;
    }
  }
  if (lastError !== null && tried.size === 1 && !(attempts.v1 && attempts.v2)) throw lastError;
  throw noGenerationError(operation);
}
