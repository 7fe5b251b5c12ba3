"""What the qmatmul benchmarks share for their output: the table as a text
file, and matplotlib's pyplot when it is installed (the plots are optional)."""
import os


def save_table(out_dir, name, lines):
    """Writes `lines` to OUT_DIR/name, one per line."""
    with open(os.path.join(out_dir, name), "w") as f:
        f.write("\n".join(lines) + "\n")


def pyplot():
    """matplotlib.pyplot with the Agg back end, or None without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt
