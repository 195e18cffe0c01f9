import "./spinner.css";

/**
 * A small busy indicator; decorative (the text beside it says what is happening). `inherit` draws
 * it in the text's colour, for a spinner inside a button or a coloured notice.
 */
export function Spinner({ inherit = false }: { inherit?: boolean }) {
  return <span className={inherit ? "spinner spinner-inherit" : "spinner"} aria-hidden="true" />;
}
