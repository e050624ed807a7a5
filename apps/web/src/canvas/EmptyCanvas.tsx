/** What an empty graph says: how to start. */
export function EmptyCanvas() {
  return (
    <div className="empty-canvas">
      <h2>An empty ensemble</h2>
      <ol>
        <li>
          Drag an <b>Input</b> from the palette on the left (or focus it and press <kbd>Enter</kbd>).
        </li>
        <li>
          Drag a <b>model</b> of your repository next to it, then wire output ports (right) to input ports (left).
        </li>
        <li>
          Finish with an <b>Output</b>. Problems Triton would reject appear below as you go.
        </li>
      </ol>
      <p>
        Press <kbd>?</kbd> for shortcuts · open an example from the toolbar.
      </p>
    </div>
  );
}
