"""Lines of text in an ink-probability map: runs of rows holding ink, each boxed by its inked columns."""

import numpy as np


def line_boxes(prob, threshold):
    """Boxes [N, 4] as (x0, y0, x1, y1), x1/y1 exclusive, top to bottom; [0, 4] when nothing reaches threshold."""
    ink = prob >= threshold
    rows = ink.any(axis=1)
    boxes = []
    y = 0
    while y < len(rows):
        if not rows[y]:
            y += 1
            continue
        y0 = y
        while y < len(rows) and rows[y]:
            y += 1
        cols = np.flatnonzero(ink[y0:y].any(axis=0))
        boxes.append([cols[0], y0, cols[-1] + 1, y])
    return np.array(boxes, dtype=np.float32).reshape(-1, 4)
