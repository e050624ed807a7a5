import type { Page } from 'playwright-core';

/** What a person sees of the graph at the current view. */
export interface Legibility {
  zoom: number;
  /** Smallest text on a node as rendered on screen (font size × zoom), titles apart. */
  minText: number;
  minTitle: number;
  nodes: number;
  /** Nodes not wholly inside the canvas. */
  outside: string[];
}

/** Reads the view's zoom and the on-screen size of every visible text on the canvas's nodes, from the DOM. */
export function readLegibility(page: Page): Promise<Legibility> {
  return page.evaluate(() => {
    const zoom = new DOMMatrixReadOnly(getComputedStyle(document.querySelector('.react-flow__viewport')!).transform).a;
    const canvas = document.querySelector('.react-flow')!.getBoundingClientRect();
    let minText = Infinity;
    let minTitle = Infinity;
    const outside: string[] = [];
    const nodes = [...document.querySelectorAll('.react-flow__node')];
    for (const node of nodes) {
      const r = node.getBoundingClientRect();
      if (r.left < canvas.left || r.right > canvas.right || r.top < canvas.top || r.bottom > canvas.bottom)
        outside.push(node.getAttribute('data-id') ?? '?');
      for (const el of node.querySelectorAll('*')) {
        if (![...el.childNodes].some((c) => c.nodeType === Node.TEXT_NODE && c.textContent!.trim())) continue;
        if (!el.checkVisibility({ visibilityProperty: true })) continue; // not shown
        const px = parseFloat(getComputedStyle(el).fontSize) * zoom;
        if (el.closest('.node-title')) minTitle = Math.min(minTitle, px);
        else minText = Math.min(minText, px);
      }
    }
    return { zoom, minText, minTitle, nodes: nodes.length, outside };
  });
}
