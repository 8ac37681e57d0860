"""Real sample documents for the Read tests: a PDF written object by object, a notebook made with nbformat."""

from __future__ import annotations

import base64


def make_pdf(pages: list[str]) -> bytes:
    """A valid PDF with one Helvetica text line per page, cross-reference table and all."""
    count = len(pages)
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(count))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {count} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    for i, text in enumerate(pages):
        stream = f"BT /F1 18 Tf 72 720 Td ({text}) Tj ET".encode()
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            f"/Resources << /Font << /F1 3 0 R >> >> /Contents {5 + 2 * i} 0 R >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def make_scanned_pdf(count: int = 1, size: tuple[int, int] = (800, 1000)) -> bytes:
    """A PDF whose pages are images only, no text layer, as a scanner writes it (pillow at 100 dpi).

    Each page is white with a black bar across its upper fifth, so a rendering can be checked by its pixels.
    """
    import io

    from PIL import Image, ImageDraw

    pages = []
    for _ in range(count):
        page = Image.new("RGB", size, "white")
        ImageDraw.Draw(page).rectangle((size[0] // 8, size[1] // 10, size[0] * 7 // 8, size[1] * 3 // 10), fill="black")
        pages.append(page)
    out = io.BytesIO()
    pages[0].save(out, "PDF", resolution=100, save_all=True, append_images=pages[1:])
    return out.getvalue()


def make_notebook() -> str:
    """Five cells (2 markdown, 3 code) with stream, result, image, stderr and error outputs."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

    png = base64.b64encode(b"\x89PNG\r\n\x1a\n fake pixels").decode()
    nb = new_notebook(
        cells=[
            new_markdown_cell("# Analysis\nSome *notes*."),
            new_code_cell(
                "print('hello from the notebook')\n6 * 7",
                execution_count=1,
                outputs=[
                    new_output("stream", name="stdout", text="hello from the notebook\n"),
                    new_output("execute_result", data={"text/plain": "42"}, execution_count=1),
                ],
            ),
            new_code_cell(
                "plot()",
                execution_count=2,
                outputs=[
                    new_output("display_data", data={"image/png": png, "text/plain": "<Figure size 640x480>"}),
                    new_output("stream", name="stderr", text="warning: slow\n"),
                ],
            ),
            new_markdown_cell("## Failure below"),
            new_code_cell(
                "1 / 0",
                execution_count=3,
                outputs=[
                    new_output(
                        "error",
                        ename="ZeroDivisionError",
                        evalue="division by zero",
                        traceback=[
                            "\x1b[0;31m-------------------------------------------\x1b[0m",
                            "\x1b[0;31mZeroDivisionError\x1b[0m: division by zero",
                        ],
                    )
                ],
            ),
        ],
        metadata={"kernelspec": {"name": "python3", "language": "python", "display_name": "Python 3"}},
    )
    return nbformat.writes(nb)


# The apply_patch example of OpenAI's GPT-4.1 prompting guide: nested @@ anchors, blank lines between hunks.
GPT41_GUIDE_PATCH = """*** Begin Patch
*** Update File: pygorithm/searching/binary_search.py
@@ class BaseClass
@@     def search():
-          pass
+          raise NotImplementedError()

@@ class Subclass
@@     def search():
-          pass
+          raise NotImplementedError()

*** End Patch"""
