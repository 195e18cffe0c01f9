import { type ComponentType, lazy, type ReactNode, Suspense, useState } from "react";

/** What a lazy part is told besides its own props. */
export interface LazyPartProps {
  /** Its stand-in was pressed before its code arrived: a menu opens at once. */
  askedEarly?: boolean;
}

type Module<P> = { default: ComponentType<P & LazyPartProps> };

/**
 * A part of a screen whose code is kept out of the screen's first JavaScript (a menu's, which only
 * matters once it is opened): fetched as soon as the module declaring it is loaded, beside the
 * screen's first requests instead of before its first paint, so it has arrived before anyone
 * reaches for it (waiting for the browser to be idle was too late). Rendered at once once it has;
 * before, `fallback` stands in (the same button), given `ask` to call when it is pressed: the part
 * then arrives with `askedEarly` (a menu opens), so that a press is never lost. A failed fetch is
 * tried again at the next render.
 */
export function lazyPart<P extends object>(
  load: () => Promise<Module<P>>,
  fallback: (props: P, ask: () => void) => ReactNode = () => null,
): ComponentType<P> {
  let loaded: Module<P> | null = null;
  let loading: Promise<Module<P>> | null = null;
  const fetchIt = () => {
    loading ??= load().then(
      (module) => {
        loaded = module;
        return module;
      },
      (error: unknown) => {
        // The next render fetches again (a render waiting meanwhile gets the error, as a page
        // whose code failed to load does).
        loading = null;
        Lazy = lazy(fetchOrHave);
        throw error;
      },
    );
    return loading;
  };
  // Code already here is handed over at once (React reads a thenable that answers within `then`
  // without suspending), so a part mounted after its code arrived shows no stand-in, not even for
  // a frame. The part is always the same element under the same Suspense: one that swapped to the
  // loaded component at its next render was mounted anew, and lost its state to an edit.
  const fetchOrHave = (): Promise<Module<P>> =>
    loaded ? (answeredNow(loaded) as Promise<Module<P>>) : fetchIt();
  let Lazy = lazy(fetchOrHave);
  fetchIt().catch(() => {});
  function LazyPart(props: P) {
    const [asked, setAsked] = useState(false);
    return (
      <Suspense fallback={fallback(props, () => setAsked(true))}>
        <Lazy {...props} askedEarly={asked} />
      </Suspense>
    );
  }
  return LazyPart;
}

/** A thenable that calls back within `then`: how React's `lazy` takes a module it can use now. */
function answeredNow<T>(value: T): PromiseLike<T> {
  return {
    // biome-ignore lint/suspicious/noThenProperty: a thenable on purpose, for React's lazy
    then: <A = T, B = never>(onFulfilled?: ((value: T) => A | PromiseLike<A>) | null) =>
      answeredNow(onFulfilled ? onFulfilled(value) : value) as PromiseLike<A | B>,
  };
}
