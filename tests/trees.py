"""Search trees for tests: hand-made one-node trees for the tree step, and walks over a result's tree."""
import numpy as np

from cardboard.search.core import AVAIL, TOTAL, VISITS, FlatTree, KeyTable
from cardboard.search.tree import Node, expand, select_edge


def hand_tree(visits, totals, avail, prior=None, num_keys: int = 64) -> FlatTree:
    """A tree whose root (player 0) has edge ``e`` under key id ``e`` with these statistics."""
    n = len(visits)
    tree = FlatTree(0, 3, max(n, 1), None, False, table=KeyTable(num_keys))
    expand(tree, 0, np.arange(n, dtype=np.int64), np.zeros(n) if prior is None else np.asarray(prior, dtype=float))
    tree.stat[VISITS, :n], tree.stat[TOTAL, :n], tree.stat[AVAIL, :n] = visits, totals, avail
    return tree


def step(tree, ids, c, u=0.0, stamp=1.0, kernel=select_edge, visits=0.0):
    """One tree step at the root of ``tree`` over the legal key ``ids`` (no visit counted unless ``visits``)."""
    ids = np.asarray(ids, dtype=np.int64)
    return tree.step(kernel, len(ids), 0, -1, 0, ids, c, float(stamp), u, visits)[1:]


def nodes_of(root: Node) -> list[Node]:
    """``root`` and every node below it."""
    nodes, todo = [], [root]
    while todo:
        node = todo.pop()
        nodes.append(node)
        todo.extend(node.children())
    return nodes


def edge_stats(node: Node, rows=slice(None)) -> np.ndarray:
    """``node``'s edge statistics (rows by edge, in the order the edges were made)."""
    return node.stat[rows][:, node.edges]


def visits_below(node: Node) -> int:
    """The visits of ``node``'s edges (a chance node's: those of the nodes below it)."""
    if node.player < 0:
        return sum(visits_below(child) for child in node.children())
    return int(node.stat[VISITS, node.edges].sum())

