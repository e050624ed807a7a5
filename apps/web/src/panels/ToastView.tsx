import { useEffect } from 'react';
import { useActions, useEditor } from '../store/useEditor.ts';

/** One message at a time (refused connections, saves, errors); fades after a few seconds. */
export function ToastView() {
  const toast = useEditor((s) => s.ui.toast);
  const a = useActions();
  useEffect(() => {
    if (!toast) return;
    const t = setTimeout(a.dismissToast, toast.level === 'error' ? 7000 : 3000);
    return () => clearTimeout(t);
  }, [toast, a]);
  if (!toast) return null;
  return (
    <div className={`toast toast-${toast.level}`} role="status" onClick={a.dismissToast}>
      {toast.text}
    </div>
  );
}
