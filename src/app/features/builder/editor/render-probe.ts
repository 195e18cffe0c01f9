/**
 * Test-only instrumentation: every node component reports each render here, so a test can prove
 * that a keystroke re-renders only its own row and that row's ancestor groups. Off (null) in the
 * app; the cost is one null check per render.
 */
export type RenderProbe = (component: string, nodeId: string) => void;

let probe: RenderProbe | null = null;

export function setRenderProbe(next: RenderProbe | null): void {
  probe = next;
}

export function reportRender(component: string, nodeId: string): void {
  if (probe) probe(component, nodeId);
}
