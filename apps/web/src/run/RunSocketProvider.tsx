import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { useEditorStore } from '../store/useEditor.ts';
import { createRunSocket, type RunSocket } from './runSocket.ts';

const RunSocketContext = createContext<RunSocket | null>(null);

/** Opens one run socket for the editor's store and closes it on unmount. */
export function RunSocketProvider({ children }: { children: ReactNode }) {
  const store = useEditorStore();
  const [socket, setSocket] = useState<RunSocket | null>(null);
  useEffect(() => {
    const s = createRunSocket(store);
    // The socket is an outside resource: opened here so that it is closed with the effect (twice mounted in
    // StrictMode, the first one closes); children see it once it exists.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    setSocket(s);
    return () => s.close();
  }, [store]);
  return <RunSocketContext.Provider value={socket}>{children}</RunSocketContext.Provider>;
}

/** The run socket, or null while it is being created. */
export function useRunSocket(): RunSocket | null {
  return useContext(RunSocketContext);
}
