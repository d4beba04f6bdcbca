"""Tile on acl_cl: an index table (movement.TableLayer) of the tiled input."""
from __future__ import annotations

import numpy as np

from .common import register
from .movement import TableLayer


@register("Tile")
class TileLayer(TableLayer):
    params_at = (1,)

    def tables(self, src):
        reps = self.value(1)
        if len(reps) != src.ndim or any(r < 0 for r in reps):
            raise ValueError(f"multiples {reps} do not fit an input of rank {src.ndim}")
        return [np.tile(src, reps)]
