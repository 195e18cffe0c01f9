import type { TestProject } from "vitest/node";
import { startPostgres } from "./postgres";

/** The `postgres` project's setup: one PostgreSQL server for the run, each test proxy a database on it. */
export default async function setup(project: TestProject) {
  const server = await startPostgres();
  project.provide("postgresUrl", server.url);
  return () => server.remove();
}
