import { ApiError } from "./api-error";

/**
 * Which generation of the service's API answers an operation. v2 is the published one and is
 * tried first; v1 is used only where v2 is absent (a 404 or 405). A v1 answer of 410 means v1 is
 * retired: v2 is the way. Both findings are remembered for the page's lifetime, so the next call
 * goes straight to what works (a reload asks again, which is cheap and self-correcting).
 *
 * One mechanism for every operation that has several ways in: verification, batch jobs, key
 * rotation, and the balance (three operations: v2's two, then v1's).
 */
export type Generation = "v1" | "v2";

export interface GenerationMemory {
  /** Attempts (`operation:name`) that answered 404/405. */
  absent: Set<string>;
  /** A v1 path answered 410 Gone. */
  v1Retired: boolean;
}

export function createGenerationMemory(): GenerationMemory {
  return { absent: new Set(), v1Retired: false };
}

/** The app's memory: one per page load. */
export const generationMemory = createGenerationMemory();

/** Forgets what the memory learnt (tests; a change of upstream). */
export function forgetGenerations(memory: GenerationMemory = generationMemory): void {
  memory.absent.clear();
  memory.v1Retired = false;
}

/** The path is not there: 404 Not Found or 405 Method Not Allowed. */
export function isAbsent(error: unknown): boolean {
  return error instanceof ApiError && (error.status === 404 || error.status === 405);
}

/** v1's answer once it was retired. */
export function isRetired(error: unknown): boolean {
  return error instanceof ApiError && error.status === 410;
}

export interface Attempt<T> {
  /** Names the attempt in the memory (its path, say). */
  name: string;
  generation: Generation;
  run: () => Promise<T>;
  /**
   * Whether a 404/405 means the path is absent. True for v2 by default; for v1 a 404 usually means
   * "no such job", an answer, unless the operation names no resource (the balance).
   */
  absentWhenMissing?: boolean;
}

export interface Answered<T> {
  value: T;
  generation: Generation;
  /** The attempt that answered. */
  name: string;
}

/** The code of the error when no attempt could answer (every one absent, or v1 retired). */
export const NO_GENERATION = "NO_GENERATION";

/** Neither generation could do it: v2 is absent and v1 retired (or missing). */
export function noGenerationError(operation: string, cause?: ApiError): ApiError {
  return new ApiError({
    kind: "not-found",
    status: cause?.status ?? 410,
    code: NO_GENERATION,
    requestId: cause?.requestId ?? null,
    message: `The service offers this (${operation}) neither in API v2 nor in v1, which is retired. The app may need an update.`,
  });
}

/**
 * Runs the attempts in order, skipping those the memory knows are absent (and v1 once retired),
 * moving on while an attempt is absent. A v1 410 sends it back to the v2 attempts the memory had
 * skipped (the memory was wrong). Any other failure is thrown as it is: a 400, 402 or 422 is an
 * answer, not a missing path. When the memory rules everything out, everything is tried again.
 */
export async function firstAnswering<T>(
  operation: string,
  attempts: readonly Attempt<T>[],
  memory: GenerationMemory = generationMemory,
): Promise<Answered<T>> {
  const key = (attempt: Attempt<T>) => `${operation}:${attempt.name}`;
  const ruledOut = (attempt: Attempt<T>) =>
    memory.absent.has(key(attempt)) || (attempt.generation === "v1" && memory.v1Retired);
  let order = attempts.filter((attempt) => !ruledOut(attempt));
  if (order.length === 0) order = [...attempts];
  const tried = new Set<Attempt<T>>();
  let lastError: ApiError | null = null;
  while (order.length > 0) {
    const attempt = order.shift()!;
    if (tried.has(attempt)) continue;
    tried.add(attempt);
    try {
      const value = await attempt.run();
      memory.absent.delete(key(attempt));
      return { value, generation: attempt.generation, name: attempt.name };
    } catch (error) {
      if (isAbsent(error) && (attempt.absentWhenMissing ?? attempt.generation === "v2")) {
        memory.absent.add(key(attempt));
        lastError = error as ApiError;
        // Nothing left in view: what the memory ruled out is the last hope (it may be wrong).
        if (order.length === 0) order = attempts.filter((a) => !tried.has(a));
        continue;
      }
      if (attempt.generation === "v1" && isRetired(error)) {
        memory.v1Retired = true;
        lastError = error as ApiError;
        const skipped = attempts.filter((a) => a.generation === "v2" && !tried.has(a));
        order = [...skipped, ...order.filter((a) => a.generation === "v2")];
        continue;
      }
      throw error;
    }
  }
  if (lastError !== null && attempts.length === 1) throw lastError;
  throw noGenerationError(operation, lastError ?? undefined);
}

/** The usual case: a v2 way and a v1 way of the same thing. */
export async function preferV2<T>(
  operation: string,
  ways: { v2?: () => Promise<T>; v1?: () => Promise<T> },
  memory: GenerationMemory = generationMemory,
): Promise<Answered<T>> {
  const attempts: Attempt<T>[] = [];
  if (ways.v2) attempts.push({ name: "v2", generation: "v2", run: ways.v2 });
  if (ways.v1) attempts.push({ name: "v1", generation: "v1", run: ways.v1 });
  return firstAnswering(operation, attempts, memory);
}
