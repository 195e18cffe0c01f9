// @ts-check
// `npm start`: the launcher (src/launcher.ts) run from its bundle, made first when a source changed.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ensureServerBuilt } from "./bundle.mjs";

const dir = await ensureServerBuilt();
await import(pathToFileURL(path.join(dir, "launcher.mjs")).href);
