import type { AddressBook } from "../../../src/sandbox/verify/verify-email";

/** A tiny stand-in for the synthetic dataset. */
export const KNOWN_ADDRESSES = new Set([
  "jane.doe@acme-robotics.com",
  "info@acme-robotics.com",
  "o'brien@northwind.io",
  "rare.person@gmail.com",
]);
export const DATASET_DOMAINS = new Set(["acme-robotics.com", "northwind.io"]);

export const syncBook: AddressBook = {
  isKnownAddress: (email) => KNOWN_ADDRESSES.has(email),
  isDatasetDomain: (domain) => DATASET_DOMAINS.has(domain),
};

export const asyncBook: AddressBook = {
  isKnownAddress: async (email) => KNOWN_ADDRESSES.has(email),
  isDatasetDomain: (domain) => DATASET_DOMAINS.has(domain),
};
