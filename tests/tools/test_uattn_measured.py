"""uattn-measured: the cycle figures of one uattn-inspect kernel record (loop_figures) and the
defaults of the measured-figures file (generator/uattn_gen/measured.py, Figures.resolved)."""
import importlib.machinery
import importlib.util
import os
import sys

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "..", "..", "generator"))
from uattn_gen import measured  # noqa: E402


def _tool():
    path = os.path.join(HERE, "..", "..", "tools", "uattn-measured")
    loader = importlib.machinery.SourceFileLoader("uattn_measured", path)
    spec = importlib.util.spec_from_loader("uattn_measured", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def loop(role, cycles, interior=None, straight=True):
    return {"role": role, "cycles_per_iter": cycles, "interior_loop": interior, "straight_line": straight}


def test_generic_instance_three_variants():
    # The generic 2D tile: element-load, every-feature and lite variants (boundary, interior each).
    rec = {"tile_loop": 6, "loops": [loop("helper", 27.1), loop("boundary", 4274.3, 2), loop("interior", 1259.4),
                                      loop("boundary", 4254.3, 4), loop("interior", 1259.4),
                                      loop("boundary", 803.0, 6), loop("interior", 683.9)]}
    got = _tool().loop_figures(rec)
    assert got == {"tile_cycles": 683.9, "boundary_cycles": 803.0, "full_tile_cycles": 1259.4,
                   "full_boundary_cycles": 4274.3}


def test_one_variant_leaves_defaults_out():
    rec = {"tile_loop": 2, "loops": [loop("helper", 27.1), loop("boundary", 672.2, 2), loop("interior", 622.3)]}
    got = _tool().loop_figures(rec)
    assert got == {"tile_cycles": 622.3, "boundary_cycles": 672.2}
    f = measured.Figures(220, 2, got["tile_cycles"], True, got["boundary_cycles"])
    assert f.resolved() == (622.3, 672.2, 622.3, 672.2)


def test_no_boundary_loop_and_loops_that_are_not_straight_line():
    # dot2 (gfx1030): one masked tile loop, no boundary loop; a loop that is not straight-line counts for nothing.
    assert _tool().loop_figures({"tile_loop": 1, "loops": [loop("helper", 61.1), loop("interior", 3235.2)]}) == \
        {"tile_cycles": 3235.2}
    rec = {"tile_loop": 1, "loops": [loop("boundary", 9999.0, 1, straight=False), loop("interior", 1001.4)]}
    assert _tool().loop_figures(rec) == {"tile_cycles": 1001.4}
    assert _tool().loop_figures({"tile_loop": 0, "loops": [loop("interior", 500.0, straight=False)]}) == {}
    assert _tool().loop_figures({"tile_loop": None, "loops": []}) == {}


def test_key_split_walk():
    # gfx1030's 8-wave tile: the shared walk is the KV-tile loop, the key split's walk its own figure.
    rec = {"tile_loop": 1, "loops": [loop("helper", 61.1), loop("interior", 1007.5), loop("split", 2177.1)]}
    assert _tool().loop_figures(rec) == {"tile_cycles": 1007.5, "split_tile_cycles": 2177.1}
    rec["loops"][2]["straight_line"] = False
    assert _tool().loop_figures(rec) == {"tile_cycles": 1007.5}


def test_resolved_scales_the_full_boundary_by_default():
    f = measured.Figures(128, 4, 1000.0, True, boundary_cycles=1500.0, full_tile_cycles=2000.0)
    assert f.resolved() == (1000.0, 1500.0, 2000.0, 3000.0)
    assert measured.Figures(128, 4, 800.0, False).resolved() == (800.0, 800.0, 800.0, 800.0)
