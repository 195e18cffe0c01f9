import "./spinner.css";

/** A small busy indicator; decorative (the text beside it says what is happening). */
export function Spinner() {
  return <span className="audience-spinner" aria-hidden="true" />;
}
