/** Number formatting shared by every screen: grouped thousands, one locale for the whole app. */
const integerFormat = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const decimalFormat = new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 });

export function formatNumber(value: number): string {
  return Number.isInteger(value) ? integerFormat.format(value) : decimalFormat.format(value);
}

/** `10000` -> `10,000 credits`; `1` -> `1 credit`. */
export function formatCredits(value: number): string {
  return `${formatNumber(value)} ${value === 1 ? "credit" : "credits"}`;
}
