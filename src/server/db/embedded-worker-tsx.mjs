// The embedded database's worker from its TypeScript source: a worker does not inherit the loader
// (tsx) of the thread that started it, so it registers its own before loading the source.
import { register } from "tsx/esm/api";

register();
await import("./embedded-worker.ts");
