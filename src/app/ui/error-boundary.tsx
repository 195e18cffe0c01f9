import { Component, type ErrorInfo, type ReactNode } from "react";
import { ErrorPanel } from "./status";

interface Props {
  children: ReactNode;
  /** Rendered above the message ("This page could not be shown"). */
  title?: string;
  /** A change of this value clears the error (the app passes the location: navigating away recovers). */
  resetKey?: unknown;
  /** Called when the person asks to try again (the app resets failed queries there). */
  onReset?: () => void;
}

interface State {
  error: Error | null;
}

/** Catches render errors below it and shows a readable message with a way out, instead of a blank page. */
export class ErrorBoundary extends Component<Props, State> {
  override state: State = { error: null };

  static getDerivedStateFromError(error: unknown): State {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override componentDidCatch(error: Error, info: ErrorInfo) {
    // Kept for whoever opens the console; the person sees the panel.
    console.error("A screen failed to render", error, info.componentStack);
  }

  override componentDidUpdate(previous: Props) {
    if (this.state.error && previous.resetKey !== this.props.resetKey) this.setState({ error: null });
  }

  private readonly retry = () => {
    this.props.onReset?.();
    this.setState({ error: null });
  };

  override render() {
    if (this.state.error)
      return (
        <ErrorPanel
          title={this.props.title ?? "This page could not be shown"}
          error={this.state.error}
          onRetry={this.retry}
        />
      );
    return this.props.children;
  }
}
