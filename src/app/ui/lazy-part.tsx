import { type ComponentType, lazy, type ReactNode, Suspense } from "react";

type Module<P> = { default: ComponentType<P> };

/**
 * A part of a screen whose code is kept out of the screen's first JavaScript (a menu's, which only
 * matters once it is opened): fetched as soon as the module declaring it is loaded, beside the
 * screen's first requests instead of before its first paint, so it has arrived before anyone
 * reaches for it (waiting for the browser to be idle was too late: a press on the Actions button
 * just after a reload did nothing). Rendered at once once it has; before, `fallback` stands in (the
 * same button, which does nothing yet). A failed fetch is tried again at the next render.
 */
export function lazyPart<P extends object>(
  load: () => Promise<Module<P>>,
  fallback: (props: P) => ReactNode = () => null,
): ComponentType<P> {
  let loaded: ComponentType<P> | null = null;
  let loading: Promise<Module<P>> | null = null;
  const fetchIt = () => {
    loading ??= load().then(
      (module) => {
        loaded = module.default;
        return module;
      },
      (error: unknown) => {
        // The next render fetches again (a render waiting meanwhile gets the error, as a page
        // whose code failed to load does).
        loading = null;
        Lazy = lazy(fetchIt);
        throw error;
      },
    );
    return loading;
  };
  let Lazy = lazy(fetchIt);
  fetchIt().catch(() => {});
  function LazyPart(props: P) {
    const Loaded = loaded;
    if (Loaded) return <Loaded {...props} />;
    return (
      <Suspense fallback={fallback(props)}>
        <Lazy {...props} />
      </Suspense>
    );
  }
  return LazyPart;
}
