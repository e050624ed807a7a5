import { useCallback, useEffect, useMemo, useRef, type DragEvent } from 'react';
import {
  Background,
  BackgroundVariant,
  Controls,
  MiniMap,
  ReactFlow,
  useReactFlow,
  useStore,
  type Connection,
  type Edge,
  type OnConnectEnd,
  type ReactFlowState,
  type Viewport,
} from '@xyflow/react';
import { canConnect } from '@ensemble-studio/core';
import { useEditor, useEditorStore } from '../store/useEditor.ts';
import type { NodeTemplate } from '../store/types.ts';
import { dtypeColor } from '../nodes/dtypeColors.ts';
import { edgeTypes, nodeTypes } from './nodeTypes.ts';
import { createToFlowEdges, createToFlowNodes, type PipelineFlowNode } from './toFlow.ts';
import { EmptyCanvas } from './EmptyCanvas.tsx';
import { DETAIL_ZOOM, FIT_PADDING_PX, MAX_FIT_ZOOM, OUTLINE_ZOOM, fitLegible } from './viewport.ts';

/** The MIME type the palette puts on a drag. */
export const PALETTE_MIME = 'application/x-ensemble-studio-node';

const toPortConnection = (c: Connection | Edge) => ({
  source: c.source,
  sourcePort: c.sourceHandle ?? '',
  target: c.target,
  targetPort: c.targetHandle ?? '',
});

function useFlowCallbacks() {
  const store = useEditorStore();
  const { screenToFlowPosition } = useReactFlow();
  // Reads the store at call time, so the callback identity never changes and memoised children do not re-render.
  const isValidConnection = useCallback(
    (c: Connection | Edge) => {
      const s = store.getState();
      return canConnect(s.doc.graph, s.catalogue, toPortConnection(c)).ok;
    },
    [store],
  );
  const onConnect = useCallback((c: Connection) => store.getState().actions.connect(toPortConnection(c)), [store]);
  const onConnectEnd: OnConnectEnd = useCallback(
    (_event, state) => {
      if (state.isValid !== false || !state.fromHandle || !state.toHandle) return;
      const [src, tgt] =
        state.fromHandle.type === 'source' ? [state.fromHandle, state.toHandle] : [state.toHandle, state.fromHandle];
      const s = store.getState();
      const r = canConnect(s.doc.graph, s.catalogue, {
        source: src.nodeId,
        sourcePort: src.id ?? '',
        target: tgt.nodeId,
        targetPort: tgt.id ?? '',
      });
      if (!r.ok) s.actions.notify(`Connection refused — ${r.reason}`, 'error');
    },
    [store],
  );
  const onDrop = useCallback(
    (e: DragEvent) => {
      const raw = e.dataTransfer.getData(PALETTE_MIME);
      if (!raw) return;
      e.preventDefault();
      const template = JSON.parse(raw) as NodeTemplate;
      store.getState().actions.addNode(template, screenToFlowPosition({ x: e.clientX - 100, y: e.clientY - 30 }));
    },
    [store, screenToFlowPosition],
  );
  const onDragOver = useCallback((e: DragEvent) => {
    if (e.dataTransfer.types.includes(PALETTE_MIME)) {
      e.preventDefault();
      e.dataTransfer.dropEffect = 'copy';
    }
  }, []);
  return { isValidConnection, onConnect, onConnectEnd, onDrop, onDragOver };
}

/** Graphs larger than this render only the nodes and edges on screen (a large graph opens showing a part of it). */
const VISIBLE_ONLY_FROM = 60;

/** Centres the viewport on focus requests (problems panel) and frames a graph legibly once its nodes are measured. */
function useViewportRequests(nodes: PipelineFlowNode[]) {
  const rf = useReactFlow<PipelineFlowNode>();
  const { setCenter, getInternalNode } = rf;
  const focus = useEditor((s) => s.ui.focus);
  const loaded = useEditor((s) => s.ui.loaded);
  useEffect(() => {
    if (!focus) return;
    const n = getInternalNode(focus.nodeId);
    if (!n) return;
    const w = n.measured.width ?? 200;
    const h = n.measured.height ?? 100;
    void setCenter(n.internals.positionAbsolute.x + w / 2, n.internals.positionAbsolute.y + h / 2, {
      zoom: 1.1,
      duration: 300,
    });
  }, [focus, setCenter, getInternalNode]);
  const fitted = useRef(-1);
  // A culled large graph never measures its off-screen nodes: there the first measured ones are enough.
  const measured =
    nodes.length > 0 &&
    (nodes.length > VISIBLE_ONLY_FROM ? nodes.some((n) => n.measured) : nodes.every((n) => n.measured));
  // The view the graph was last framed at: while the user has not moved it, a canvas that changes size (a wider
  // run panel, a resized window) frames the graph again.
  const framed = useRef<Viewport | null>(null);
  const empty = nodes.length === 0;
  useEffect(() => {
    if (fitted.current === loaded) return;
    // A graph loaded empty (New) is built by the user: the first node they drop must stay where they dropped it.
    if (empty) fitted.current = loaded;
    if (!measured || fitted.current === loaded) return;
    fitted.current = loaded;
    requestAnimationFrame(() => {
      framed.current = fitLegible(rf);
    });
  }, [measured, loaded, empty, rf]);
  useEffect(() => {
    const el = document.querySelector('.react-flow');
    if (!el) return;
    const same = (a: Viewport, b: Viewport) =>
      Math.abs(a.x - b.x) < 0.5 && Math.abs(a.y - b.y) < 0.5 && Math.abs(a.zoom - b.zoom) < 1e-3;
    const observer = new ResizeObserver(() => {
      if (framed.current && same(framed.current, rf.getViewport())) framed.current = fitLegible(rf);
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [rf]);
}

// Props given to React Flow as constants: the canvas re-renders on every frame of a drag (its node list changes), and
// a fresh object there would re-render every edge (or the minimap) on that frame.
const MULTI_SELECT_KEYS = ['Shift', 'Meta', 'Control'];
const PRO_OPTIONS = { hideAttribution: true };
const MINIMAP_STYLE = { width: 160, height: 100 };
// The controls' Fit View frames the whole graph with the same margin and zoom cap as the toolbar's Fit, so for a graph
// that fits legibly both land on the same view (a large one: Fit View shows it all, Fit frames it readable).
const FIT_VIEW_OPTIONS = { padding: `${FIT_PADDING_PX}px`, maxZoom: MAX_FIT_ZOOM } as const;

/** The canvas's semantic-zoom class: less detail the further out, as its text would be unreadable there anyway. */
const zoomClass = (s: ReactFlowState) =>
  s.transform[2] < OUTLINE_ZOOM ? ' zoomed-out outline' : s.transform[2] < DETAIL_ZOOM ? ' zoomed-out' : '';

const miniMapColor = (n: PipelineFlowNode) => {
  if (n.data.problems?.severity === 'error') return '#e5484d';
  return dtypeColor(n.data.outputs[0]?.datatype ?? n.data.inputs[0]?.datatype);
};

/** The React Flow canvas over the editor store. */
export function Canvas() {
  const toNodes = useMemo(() => createToFlowNodes(), []);
  const toEdges = useMemo(() => createToFlowEdges(), []);
  const nodes = useEditor(toNodes);
  const edges = useEditor(toEdges);
  const theme = useEditor((s) => s.ui.theme);
  const actions = useEditor((s) => s.actions);
  const callbacks = useFlowCallbacks();
  useViewportRequests(nodes);
  const detail = useStore(zoomClass);
  return (
    <div className={`canvas${detail}`} onDrop={callbacks.onDrop} onDragOver={callbacks.onDragOver}>
      <ReactFlow<PipelineFlowNode>
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        edgeTypes={edgeTypes}
        onNodesChange={actions.applyNodeChanges}
        onEdgesChange={actions.applyEdgeChanges}
        onConnect={callbacks.onConnect}
        onConnectEnd={callbacks.onConnectEnd}
        isValidConnection={callbacks.isValidConnection}
        deleteKeyCode={null}
        multiSelectionKeyCode={MULTI_SELECT_KEYS}
        colorMode={theme}
        minZoom={0.1}
        onlyRenderVisibleElements={nodes.length > VISIBLE_ONLY_FROM}
        proOptions={PRO_OPTIONS}
      >
        <Background variant={BackgroundVariant.Dots} gap={20} size={1} />
        <MiniMap<PipelineFlowNode> pannable zoomable nodeColor={miniMapColor} style={MINIMAP_STYLE} />
        <Controls fitViewOptions={FIT_VIEW_OPTIONS} />
      </ReactFlow>
      {nodes.length === 0 && <EmptyCanvas />}
    </div>
  );
}
