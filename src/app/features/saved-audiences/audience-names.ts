import { z } from "zod";
import { audienceNameSchema } from "../../../contract/team";

/**
 * Saved audience names: what a person types, trimmed, 1 to NAME_MAX characters (the contract's
 * rule, which the proxy checks too). Names are plain: two audiences may share one, since each is
 * told apart by its owner and its link; saving never renames anything to `Name (2)`.
 */
export const NAME_MAX = 120;

/** The form's schema (react-hook-form + zod). */
export const nameFormSchema = z.object({ name: audienceNameSchema });
