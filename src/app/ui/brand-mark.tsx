/** The product mark (the same picture as the favicon), decorative next to the product name. */
export function BrandMark() {
  return <img className="brand-mark" src="/favicon.svg" alt="" width={24} height={24} />;
}
