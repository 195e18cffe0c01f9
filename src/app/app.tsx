import { QueryClientProvider } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { serverIsUp } from "./api/health";
import { watchRecovery } from "./api/recovery";
import { AppShell } from "./layout/app-shell";
import { createQueryClient } from "./query-client";
import { ErrorBoundary } from "./ui/error-boundary";

/**
 * The whole app: one QueryClient (whose failed reads come back with the server, api/recovery.ts), a
 * last-resort error boundary, then the shell and its pages.
 */
export function App() {
  const [queryClient] = useState(createQueryClient);
  useEffect(() => watchRecovery(queryClient, { check: serverIsUp }), [queryClient]);
  return (
    <ErrorBoundary title="Audience Builder stopped working">
      <QueryClientProvider client={queryClient}>
        <AppShell />
      </QueryClientProvider>
    </ErrorBoundary>
  );
}
