"""Execute docs/notebooks/*.ipynb and save what each result cell shows as docs/screenshots/nb_*.png.

    .venv/bin/python scripts/make_notebook_screenshots.py [OUT_DIR]

The README's notebook pictures come from this run, not from a separate drawing script: each
notebook is executed with nbclient in a fresh ipykernel (no ``%matplotlib inline``, no pyplot
import, exactly as tests/docs/test_notebooks.py runs it); a cell whose result is a figure is
saved as the PNG the kernel returned, a cell whose result is HTML is rendered by headless
Chromium (Debian's /usr/bin/chromium, through playwright) at a notebook's width and cut to the
output. Files are named ``nb_<notebook>_<n>.png`` after the n-th code cell (0-based). Text wraps at
960 px, but a wider table widens the picture to hold it: Jupyter scrolls such a table, and a picture
cut at 960 px dropped the status's last columns (its PPI rates).
"""

from __future__ import annotations

import base64
import sys
import tempfile
from pathlib import Path

import nbclient
import nbformat

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "docs" / "notebooks"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
# Roughly JupyterLab's output area: its font, its width, a white page.
PAGE = ("<!doctype html><meta charset='utf-8'><style>body{{margin:0;background:#fff;"
        "font-family:-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;font-size:13px}}"
        "#out{{display:inline-block;padding:12px 16px;max-width:960px}}</style><div id='out'>{}</div>")

# a table wider than the output area widens it (the text keeps wrapping at 960 px)
WIDEN = ("() => { const o = document.getElementById('out');"
         " const w = Math.max(0, ...[...o.querySelectorAll('table')].map(t => t.scrollWidth));"
         " if (w > o.clientWidth - 32) o.style.maxWidth = w + 'px'; }")


def executed(name: str, workdir: Path) -> list:
    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(workdir)}}).execute()
    return [c for c in nb.cells if c.cell_type == "code"]


def main(out_dir: str = "docs/screenshots") -> None:
    from playwright.sync_api import sync_playwright

    out = ROOT / out_dir
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 800}, device_scale_factor=1)
        for name in ("comparison", "monitoring", "segments_delayed"):
            for i, cell in enumerate(executed(name, Path(tmp))):
                results = [o for o in cell.outputs if o.output_type == "execute_result"]
                if not results:
                    continue
                data = results[-1]["data"]
                target = out / f"nb_{name}_{i}.png"
                if "image/png" in data:
                    target.write_bytes(base64.b64decode(data["image/png"]))
                elif "text/html" in data:
                    page.set_content(PAGE.format(data["text/html"]))
                    page.evaluate(WIDEN)
                    page.locator("#out").screenshot(path=str(target))
                else:
                    continue
                print(f"wrote {target}")
        browser.close()


if __name__ == "__main__":
    main(*sys.argv[1:])
