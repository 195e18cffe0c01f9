import type { TestProject } from "vitest/node";
import { buildProduct } from "./product-build";

/** Set-up of the projects that start the product as a process: its entries bundled once per run. */
export default async function setup(project: TestProject) {
  const build = await buildProduct();
  project.provide("productBuild", build.dir);
  return () => build.remove();
}
