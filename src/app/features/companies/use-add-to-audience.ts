import { useCallback, useState } from "react";
import { useLocation } from "wouter";
import type { FilterNode } from "../../../contract/filter";
import { browserStorage } from "../../lib/store";
import { appendToWorkingAudience } from "../../lib/working-tree";

/**
 * One click adds a rule to the working audience (ANDed, `appendToWorkingAudience`) and opens the
 * Builder with it, where the person sees the rule and the new count; `error` says why it could not.
 */
export function useAddToAudience() {
  const [, navigate] = useLocation();
  const [error, setError] = useState<string | null>(null);
  const add = useCallback(
    (node: FilterNode) => {
      const result = appendToWorkingAudience(browserStorage(), node, window.location);
      if (!result.ok) {
        setError(result.error);
        return;
      }
      setError(null);
      navigate(result.href);
    },
    [navigate],
  );
  return { add, error, setError };
}
