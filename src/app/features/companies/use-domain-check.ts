import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import { VALUE_LIST_MAX } from "../../../contract/inferred";
import { checkPresence, type PresenceProgress, presenceChunks } from "../../api/value-counts";
import { type DomainList, matchDomains, readDomainList } from "./domains";

export type DomainCheck =
  | { state: "idle" }
  /** Nothing in what was given is a domain. */
  | { state: "empty"; list: DomainList }
  | { state: "checking"; list: DomainList; progress: PresenceProgress }
  | { state: "stopped"; list: DomainList; progress: PresenceProgress }
  | { state: "failed"; list: DomainList; error: unknown }
  | { state: "done"; list: DomainList; matched: string[]; unmatched: string[]; people: number };

/**
 * Reads a target-account list and checks which of its domains the data holds, for free (insights
 * breakdowns of 20 domains at a time, `checkPresence`), with its progress. A new check replaces
 * the one running; leaving the page stops it. `resume` runs the last list again: the chunks that
 * answered come from the cache, so it goes on where it stopped.
 */
export function useDomainCheck() {
  const queryClient = useQueryClient();
  const [check, setCheck] = useState<DomainCheck>({ state: "idle" });
  const running = useRef<AbortController | null>(null);
  const lastText = useRef("");
  useEffect(() => () => running.current?.abort(), []);

  const start = useCallback(
    (text: string) => {
      running.current?.abort();
      lastText.current = text;
      const list = readDomainList(text);
      if (list.domains.length === 0) {
        running.current = null;
        setCheck({ state: "empty", list });
        return;
      }
      const controller = new AbortController();
      running.current = controller;
      const live = () => running.current === controller && !controller.signal.aborted;
      checkPresence(queryClient, "DOMAIN_ORG", presenceChunks(list.domains, VALUE_LIST_MAX), {
        signal: controller.signal,
        onProgress: (progress) => {
          if (live()) setCheck({ state: "checking", list, progress });
        },
      }).then(
        (counts) => {
          if (live()) setCheck({ state: "done", list, ...matchDomains(list.domains, counts) });
        },
        (error: unknown) => {
          if (live()) setCheck({ state: "failed", list, error });
        },
      );
    },
    [queryClient],
  );

  const stop = useCallback(() => {
    running.current?.abort();
    setCheck((now) => (now.state === "checking" ? { ...now, state: "stopped" } : now));
  }, []);

  const resume = useCallback(() => start(lastText.current), [start]);

  return { check, start, stop, resume };
}
