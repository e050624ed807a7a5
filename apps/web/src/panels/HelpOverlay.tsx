import { useActions, useEditor } from '../store/useEditor.ts';
import { SHORTCUTS } from '../hooks/useShortcuts.ts';

/** `?`: the keyboard shortcuts and how the editor works. */
export function HelpOverlay() {
  const open = useEditor((s) => s.ui.help);
  const a = useActions();
  if (!open) return null;
  return (
    <div className="overlay" role="dialog" aria-label="Keyboard shortcuts" onClick={() => a.toggleHelp(false)}>
      <div className="dialog" onClick={(e) => e.stopPropagation()}>
        <h2>Keyboard shortcuts</h2>
        <table>
          <tbody>
            {SHORTCUTS.map((s) => (
              <tr key={s.keys}>
                <td>
                  <kbd>{s.keys}</kbd>
                </td>
                <td>{s.does}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <h3>How it works</h3>
        <p className="small">
          Drag from an output port (right side of a node) to an input port (left side). Port colours are dtypes; the
          editor refuses a connection Triton would reject and says why. Routers fan one tensor out; conditions end the
          pipeline early. The problems panel lists everything Triton would refuse — click one to jump to it.
        </p>
        <button onClick={() => a.toggleHelp(false)}>Close</button>
      </div>
    </div>
  );
}
