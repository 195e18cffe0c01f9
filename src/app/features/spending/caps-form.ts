import { z } from "zod";
import { type Caps, capsUpdate } from "../../../contract/spending";

/**
 * The caps form's values are what people type (text; blank means none), turned into the
 * contract's numbers on submit and checked with the contract's own schema.
 */
const MAX = 1_000_000_000;
const creditsText = z
  .string()
  .trim()
  .refine((text) => {
    if (text === "") return true;
    const plain = text.replace(/[,\s_]/g, "");
    return /^\d{1,10}$/.test(plain) && Number(plain) <= MAX;
  }, "Whole credits (0 to 1,000,000,000), or leave it blank.");

export const capsFormSchema = z.object({
  teamMonthlyCap: creditsText,
  people: z.array(z.object({ name: z.string(), monthlyCap: creditsText, approvalThreshold: creditsText })),
});
export type CapsForm = z.input<typeof capsFormSchema>;

export function toNumber(text: string): number | null {
  const plain = text.trim().replace(/[,\s_]/g, "");
  return plain === "" ? null : Number(plain);
}

const toText = (value: number | null) => (value === null ? "" : String(value));

export function capsToForm(caps: Caps): CapsForm {
  return {
    teamMonthlyCap: toText(caps.teamMonthlyCap),
    people: caps.people.map((p) => ({
      name: p.name,
      monthlyCap: toText(p.monthlyCap),
      approvalThreshold: toText(p.approvalThreshold),
    })),
  };
}

/** The PUT body of the form's values (already checked by `capsFormSchema`). */
export function formToUpdate(form: CapsForm): z.input<typeof capsUpdate> {
  return capsUpdate.parse({
    teamMonthlyCap: toNumber(form.teamMonthlyCap),
    people: form.people.map((p) => ({
      name: p.name,
      monthlyCap: toNumber(p.monthlyCap),
      approvalThreshold: toNumber(p.approvalThreshold),
    })),
  });
}
