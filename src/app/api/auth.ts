import { useMutation, useQueryClient } from "@tanstack/react-query";
import { z } from "zod";
import { closeInThisTab } from "../lib/remembered-audience";
import { postAuth } from "./client";
import { SESSION_QUERY_KEY } from "./session";

/**
 * The proxy's sign-in (only when it runs with USERS_FILE): `POST /auth/sign-in` sets an httpOnly
 * session cookie; `POST /auth/sign-out` clears it.
 */
export const signInAnswer = z.object({ user: z.string() });
export const signOutAnswer = z.object({ signedOut: z.literal(true) });

export interface SignInInput {
  name: string;
  password: string;
}

export function signIn(input: SignInInput) {
  return postAuth("sign-in", input, signInAnswer);
}

export function signOut() {
  return postAuth("sign-out", undefined, signOutAnswer);
}

export function useSignIn() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: signIn,
    onSuccess: async () => {
      // Another person may sign in on this tab: nothing cached for the last one survives.
      queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== SESSION_QUERY_KEY[0] });
      await queryClient.invalidateQueries({ queryKey: SESSION_QUERY_KEY });
    },
  });
}

export function useSignOut() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: signOut,
    onSuccess: async () => {
      // The next person in this tab does not inherit the open audience (their Save would write it);
      // the server still remembers it for the one who signed out.
      closeInThisTab();
      queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== SESSION_QUERY_KEY[0] });
      // Reset, not invalidate: the sign-in page must not say the session ended under them.
      await queryClient.resetQueries({ queryKey: SESSION_QUERY_KEY });
    },
  });
}
