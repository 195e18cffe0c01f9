import { QueryClientProvider } from "@tanstack/react-query";
import { useState } from "react";
import { AppShell } from "./layout/app-shell";
import { createQueryClient } from "./query-client";
import { ErrorBoundary } from "./ui/error-boundary";

/** The whole app: one QueryClient, a last-resort error boundary, then the shell and its pages. */
export function App() {
  const [queryClient] = useState(createQueryClient);
  return (
    <ErrorBoundary title="Audience Builder stopped working">
      <QueryClientProvider client={queryClient}>
        <AppShell />
      </QueryClientProvider>
    </ErrorBoundary>
  );
}
