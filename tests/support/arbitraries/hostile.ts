import fc from "fast-check";
import { bodyRecipeArb } from "./hostile-bodies";
import { headerRecipeArb } from "./hostile-headers";
import { multipartRecipeArb } from "./hostile-multipart";
import { pathRecipeArb } from "./hostile-paths";
import type { Recipe } from "./raw-request";

// ---------------------------------------------------------------------------------------------
// Everything at once
// ---------------------------------------------------------------------------------------------

export function anyRecipeArb(options: { own?: boolean } = {}): fc.Arbitrary<Recipe> {
  return fc.oneof(
    { arbitrary: bodyRecipeArb(options), weight: 3 },
    { arbitrary: headerRecipeArb(options), weight: 3 },
    { arbitrary: pathRecipeArb(options), weight: 3 },
    { arbitrary: multipartRecipeArb(), weight: 1 },
  );
}
