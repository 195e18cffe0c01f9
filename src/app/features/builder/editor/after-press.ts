/**
 * Runs something that changes the layout (a rule's message appearing, a list folding) only once
 * the press in progress, if any, is over: done during the press, it would move the button being
 * pressed away from the pointer, and the click would be lost. A press is followed from the
 * document's pointer events (listened to once, in the capture phase, for the whole page).
 */
let pressing = false;
let waiting: (() => void)[] = [];
let listening = false;

function listen() {
  if (listening || typeof document === "undefined") return;
  listening = true;
  document.addEventListener(
    "pointerdown",
    () => {
      pressing = true;
    },
    true,
  );
  const up = () => {
    pressing = false;
    // After the click that ends this press, which is dispatched in the same task.
    setTimeout(() => {
      const run = waiting;
      waiting = [];
      for (const job of run) job();
    }, 0);
  };
  document.addEventListener("pointerup", up, true);
  document.addEventListener("pointercancel", up, true);
}

export function afterPress(job: () => void): void {
  listen();
  if (pressing) waiting.push(job);
  else job();
}

/** Starts following presses (before the first one that matters). */
export function followPresses(): void {
  listen();
}
