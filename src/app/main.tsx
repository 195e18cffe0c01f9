import { StrictMode } from "react";
import { createRoot } from "react-dom/client";

// Placeholder shell: the real app shell arrives with the proxy issue.
function App() {
  return <main>Audience Builder</main>;
}

const root = document.getElementById("root");
if (root)
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
